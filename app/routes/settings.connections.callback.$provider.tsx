import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { userApi } from "~/lib/api.server";
import { OAUTH_PROVIDERS, type Failure } from "~/lib/connections";
import { clearStateCookie, SIGN_IN, stateMatches } from "~/lib/connections.server";
import { requireUser, startSession } from "~/lib/session.server";

/** The API call that finishes a link, per provider (issue 16). */
const FINISH: Record<string, string> = {
  discord: "/auth/link-discord",
  spotify: "/spotify/exchange-code",
  youtube: "/youtube/exchange-code",
  soundcloud: "/soundcloud/refresh-token",
};

const reason = (status: number): Failure =>
  status === 400
    ? "state"
    : status === 409
      ? "elsewhere"
      : status === 503
        ? "unavailable"
        : "generic";

/** Finishes a Discord sign-in (or sign-up): a session cookie and home, or back to log in. */
async function signInWithDiscord(args: LoaderFunctionArgs, q: URLSearchParams) {
  const headers = new Headers({ "Set-Cookie": clearStateCookie(args.request) });
  const back = (f: Failure) => redirect(`/login?failed=${f}`, { headers });
  const code = q.get("code");
  if (q.get("error") || !code) return back("denied");
  const res = await userApi<{ token: string }>(args, "/auth/discord-auth", {
    method: "POST",
    json: { code: code.slice(0, 2048), state: q.get("state") },
  });
  if (!res.ok) return back(reason(res.status));
  const cookie = await startSession(args, res.data.token);
  if (!cookie) return back("generic");
  headers.append("Set-Cookie", cookie);
  return redirect("/", { headers });
}

/**
 * Where the provider sends the browser back (the redirect URI the API registers):
 * `?code&state`, or `?error=access_denied` when the person said no. The state must be the
 * one this browser's cookie holds (else nothing is sent to the API), and the API checks it
 * is this account's, unused and fresh. Either way the page goes back to Connected accounts,
 * saying what happened.
 */
export async function loader(args: LoaderFunctionArgs) {
  const provider = args.params.provider ?? "";
  const q = new URL(args.request.url).searchParams;
  // A Discord sign-in started on the log-in page (its cookie says so): no account yet.
  if (provider === "discord" && stateMatches(args.request, SIGN_IN, q.get("state")))
    return signInWithDiscord(args, q);
  const { token } = await requireUser(args);
  const headers = { "Set-Cookie": clearStateCookie(args.request) };
  const back = (failed: Failure | null) =>
    redirect(
      failed
        ? `/settings/connections?failed=${failed}&provider=${provider}`
        : `/settings/connections?linked=${provider}`,
      { headers },
    );
  if (!OAUTH_PROVIDERS.includes(provider as never)) return back("generic");
  if (q.get("error")) return back("denied");
  const state = q.get("state");
  const code = q.get("code");
  if (!code || !stateMatches(args.request, provider, state)) return back("state");
  const res = await userApi(args, FINISH[provider], {
    method: "POST",
    token,
    json: { code: code.slice(0, 2048), state },
  });
  if (res.ok) return back(null);
  return back(reason(res.status));
}

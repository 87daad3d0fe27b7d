import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { userApi } from "~/lib/api.server";
import { OAUTH_PROVIDERS, type Failure } from "~/lib/connections";
import { clearStateCookie, stateMatches } from "~/lib/connections.server";
import { requireUser } from "~/lib/session.server";

/** The API call that finishes a link, per provider (issue 16). */
const FINISH: Record<string, string> = {
  discord: "/auth/link-discord",
  spotify: "/spotify/exchange-code",
  youtube: "/youtube/exchange-code",
  soundcloud: "/soundcloud/refresh-token",
};

/**
 * Where the provider sends the browser back (the redirect URI the API registers):
 * `?code&state`, or `?error=access_denied` when the person said no. The state must be the
 * one this browser's cookie holds (else nothing is sent to the API), and the API checks it
 * is this account's, unused and fresh. Either way the page goes back to Connected accounts,
 * saying what happened.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const provider = args.params.provider ?? "";
  const q = new URL(args.request.url).searchParams;
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
  return back(
    res.status === 400
      ? "state"
      : res.status === 409
        ? "elsewhere"
        : res.status === 503
          ? "unavailable"
          : "generic",
  );
}

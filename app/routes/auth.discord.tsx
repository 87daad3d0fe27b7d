import { data, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { userApi } from "~/lib/api.server";
import { SIGN_IN, stateCookie } from "~/lib/connections.server";

/**
 * POST /auth/discord (the log-in page's "Continue with Discord"): a sign-in state from the
 * API, kept in this browser's state cookie, and the URL of Discord's consent page for the
 * page to go to. Discord sends the browser back to /settings/connections/callback/discord.
 */
export async function action(args: ActionFunctionArgs) {
  const res = await userApi<{ url: string; state: string }>(
    args,
    "/auth/discord/authorize-url?intent=sign-in",
  );
  if (!res.ok) return data({ error: res }, { status: res.status });
  return data(
    { redirectTo: res.data.url },
    { headers: { "Set-Cookie": stateCookie(args.request, SIGN_IN, res.data.state) } },
  );
}

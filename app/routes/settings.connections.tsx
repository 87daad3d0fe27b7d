import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ConnectionsScreen } from "~/components/profile/ConnectionsScreen";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { FAILURES, OAUTH_PROVIDERS, type Connections, type Failure } from "~/lib/connections";
import { stateCookie } from "~/lib/connections.server";
import { formString } from "~/lib/forms";
import type { MusicKitSetup } from "~/lib/musickit";
import { requireUser } from "~/lib/session.server";
import { musicKitScriptUrl } from "../../workers/security-headers";

export const meta = pageMeta("linked.title");

/**
 * MusicKit's setup when Apple Music can be linked here: the script and our developer token
 * (MusicKit JS runs in the page with it, as Apple designs it; it is not a secret of the person).
 */
async function musicKitSetup(
  args: LoaderFunctionArgs,
  token: string,
  connections: Connections | null,
): Promise<MusicKitSetup | null> {
  if (!connections?.providers.some((p) => p.provider === "apple" && p.available)) return null;
  const dev = await userApi<{ developerToken: string }>(args, "/apple/developer-token", { token });
  if (!dev.ok) return null;
  return {
    scriptUrl: musicKitScriptUrl(args.context.env),
    developerToken: dev.data.developerToken,
  };
}

/** The caller's links and which providers this server offers; `?linked=` / `?failed=` from a callback. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const res = await userApi<Connections>(args, "/linked-accounts", { token });
  const q = new URL(args.request.url).searchParams;
  const failed = q.get("failed");
  const provider = q.get("provider") ?? q.get("linked");
  return {
    connections: res.ok ? res.data : null,
    musicKit: await musicKitSetup(args, token, res.ok ? res.data : null),
    error: res.ok ? null : res,
    linked: q.get("linked"),
    failed: FAILURES.includes(failed as Failure) ? (failed as Failure) : null,
    provider: provider && OAUTH_PROVIDERS.includes(provider as never) ? provider : null,
  };
}

/**
 * `intent=link`: asks the API for the provider's authorize URL (a fresh single-use state
 * bound to this account), keeps the state in the browser's cookie, and answers the URL for
 * the page to navigate to. `intent=apple`: stores the Music User Token MusicKit gave the page.
 * `intent=unlink`: removes the link.
 */
export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const form = await args.request.formData();
  const provider = formString(form, "provider");
  const intent = formString(form, "intent");
  if (intent === "link" && OAUTH_PROVIDERS.includes(provider as never)) {
    const res = await userApi<{ url: string; state: string }>(
      args,
      `/auth/${provider}/authorize-url`,
      { token },
    );
    if (!res.ok) return data({ error: res, provider }, { status: res.status });
    return data(
      { redirectTo: res.data.url, provider },
      { headers: { "Set-Cookie": stateCookie(args.request, provider, res.data.state) } },
    );
  }
  if (intent === "apple") {
    // MusicKit gave the page a Music User Token: the API keeps it once Apple accepts it.
    const res = await userApi<{ displayName: string }>(args, "/apple/user-token", {
      method: "POST",
      token,
      json: { musicUserToken: formString(form, "musicUserToken").slice(0, 4096) },
    });
    if (!res.ok) return data({ error: res, provider: "apple" }, { status: res.status });
    return { linkedApple: res.data.displayName };
  }
  if (intent === "unlink") {
    const res = await userApi<{ removed: boolean }>(
      args,
      `/linked-accounts/${encodeURIComponent(provider)}`,
      { method: "DELETE", token },
    );
    if (!res.ok) return data({ error: res, provider }, { status: res.status });
    return { unlinked: provider };
  }
  return data(
    { error: { status: 400, message: "Unknown action", generic: true }, provider },
    { status: 400 },
  );
}

export default function ConnectionsPage() {
  return <ConnectionsScreen {...useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

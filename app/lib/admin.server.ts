import { data, type AppLoadContext } from "@remix-run/cloudflare";
import { isModerator } from "./moderation";
import { clearSessionCookie, getSession, loginRedirect } from "./session.server";

/**
 * The admin pages' gate: a guest goes to log in, a signed-in user without an admin role
 * gets a 403 page (the API checks again on every call).
 */
export async function requireAdmin(args: { request: Request; context: AppLoadContext }) {
  const session = await getSession(args);
  if (!session.user || !session.token) {
    throw loginRedirect(
      args.request,
      session.setCookie ? { "Set-Cookie": session.setCookie } : undefined,
    );
  }
  if (!session.isAdmin) throw data({ message: null }, { status: 403 });
  return session as typeof session & { token: string };
}

/** An admin call that failed: 401 logs out, anything else becomes the error page. */
export function adminFailure(
  request: Request,
  res: { status: number; message: string; generic: boolean },
): never {
  if (res.status === 401)
    throw loginRedirect(request, { "Set-Cookie": clearSessionCookie(request) });
  throw data({ message: res.generic ? null : res.message }, { status: res.status });
}

/** The moderation pages' gate: moderator-type roles (the API checks the hierarchy on every call). */
export async function requireModerator(args: { request: Request; context: AppLoadContext }) {
  const session = await getSession(args);
  if (!session.user || !session.token) {
    throw loginRedirect(
      args.request,
      session.setCookie ? { "Set-Cookie": session.setCookie } : undefined,
    );
  }
  if (!isModerator(session.roles)) throw data({ message: null }, { status: 403 });
  return session as typeof session & { token: string };
}

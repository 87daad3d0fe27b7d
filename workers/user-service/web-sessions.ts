import { Hono } from "hono";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { createWebSession, endWebSession } from "../lib/web-sessions";
import { MSG } from "./messages";

/**
 * The web app's sessions (lib/web-sessions.ts): a page that signs someone in trades the
 * token it was given for a session whose id goes into the browser's cookie, and logout ends
 * it. A bearer token can make a session (it is worth as much), but a session's id is never
 * shown again.
 */
export const webSessionRoutes = new Hono<AppEnv>();

/** POST /auth/web-sessions: a new session for the caller's account: `{ sessionId, expiresAt }`. */
webSessionRoutes.post("/auth/web-sessions", requireUser, async (c) => {
  const who = caller(c);
  const made = await createWebSession(
    c.env,
    { uuid: who.uuid, type: who.type === "bot" ? "bot" : "user", sv: who.user.sessionVersion },
    c.req.header("User-Agent") ?? null,
  );
  return c.json({ sessionId: made.id, expiresAt: new Date(made.expiresAt).toISOString() }, 201);
});

/** DELETE /auth/web-sessions/current: logout; the call must come through a web session. */
webSessionRoutes.delete("/auth/web-sessions/current", requireUser, async (c) => {
  const who = caller(c);
  if (!who.sessionId) throw new ApiError(400, MSG.notAWebSession);
  await endWebSession(c.env, who.sessionId);
  return c.json({ message: MSG.loggedOut });
});

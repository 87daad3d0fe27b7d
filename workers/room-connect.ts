import { verifyToken } from "./lib/jwt";
import type { Env } from "./env";
import { errorBody } from "./lib/errors";
import { ticketAdmits } from "./lib/room-ticket";

/** Header the gateway sets on a room connection after verifying its token; clients cannot. */
export const CALLER_HEADER = "x-hangout-caller";

/**
 * Runs before a websocket reaches a Room object: the token (query `token`, since browsers
 * cannot set headers on a websocket) must be valid. The verified identity travels to the
 * object in a header the gateway overwrites, so a client cannot claim to be someone else.
 */
export async function authorizeRoomConnection(req: Request, env: Env): Promise<Request | Response> {
  const token = new URL(req.url).searchParams.get("token");
  const claims = token ? await verifyToken(env, token) : null;
  if (!claims)
    return Response.json(errorBody(401, "A valid token is needed to join a room."), {
      status: 401,
    });
  // A join ticket from POST /rooms/{id}/join (checked here, where the secret is) lets the
  // object admit this caller to a password-protected room.
  const roomUuid = new URL(req.url).pathname.split("/")[3] ?? "";
  const joined = await ticketAdmits(
    env,
    new URL(req.url).searchParams.get("ticket"),
    decodeURIComponent(roomUuid),
    claims.sub,
  );
  const headers = new Headers(req.headers);
  headers.set(
    CALLER_HEADER,
    JSON.stringify({ uuid: claims.sub, type: claims.type, roles: claims.roles, joined }),
  );
  return new Request(req, { headers });
}

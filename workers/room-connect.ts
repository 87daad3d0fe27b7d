import { eq, sql } from "drizzle-orm";
import { RELAY_HEADER, RELAY_OF_HEADER } from "../durable/room/relay-link";
import { db } from "./db/client";
import { guestPlays, roomConnections, rooms, users } from "./db/schema";
import type { Env } from "./env";
import { callerFrom, hasAccount } from "./lib/auth";
import { ApiError, errorBody } from "./lib/errors";
import { verifyToken } from "./lib/jwt";
import { ticketAdmits } from "./lib/room-ticket";
import { cookieClaims } from "./lib/web-sessions";
import { blockListQuery } from "./social-service/blocks";

/** Header the gateway sets on a room connection after verifying its token; clients cannot. */
export const CALLER_HEADER = "x-hangout-caller";

const refuse = (status: 401 | 403 | 404, message: string) =>
  Response.json(errorBody(status, message), { status });

/**
 * Runs before a websocket reaches a Room object. The token (query `token`, since a websocket
 * cannot carry headers, or the web session cookie from our own pages) must verify and, for an account, still stand for it
 * now: the same rule as REST (`callerFrom`: not deactivated, sessions not ended since it was
 * signed), with the roles read from D1, never from the token. The room must exist in D1, so
 * a made-up or deleted name is a 404 and no object is created for it. The verified identity
 * travels to the object in a header the gateway overwrites, so a client cannot claim to be
 * someone else. A platform ban (lib/bans.ts) is refused here with a 403 naming it; room bans
 * are the object's to enforce (room roles live there; it refuses a banned user before
 * sending anything).
 */
export async function authorizeRoomConnection(
  req: Request,
  env: Env,
  /** "ttfm": the /primus bridge (workers/primus.ts) opens this socket for a tt.live bot. */
  dialect?: "ttfm",
): Promise<Request | Response> {
  const url = new URL(req.url);
  const token = url.searchParams.get("token");
  // A bot or app names its token; a browser's socket carries its cookies instead (only from
  // our own pages: a socket opened by another site gets no identity from them).
  const claims = token ? await verifyToken(env, token) : await cookieClaims(env, req);
  if (!claims) return refuse(401, "A valid token is needed to join a room.");
  const roomUuid = safeDecode(url.pathname.split("/")[3] ?? "");
  const d = db(env);
  const findRoom = d.select({ uuid: rooms.uuid }).from(rooms).where(eq(rooms.uuid, roomUuid));
  let room: { uuid: string } | undefined;
  let account: typeof users.$inferSelect | undefined;
  let freePlays: { used: number; lastPlayId: string | null } | undefined;
  let blocks: string[] = [];
  const blocksAt = Date.now();
  if (hasAccount(claims)) {
    // One round trip. The (user, room) row is written before the account is read, in the same
    // batch: a change to the account that commits after this read finds the row and reaches
    // the room (workers/room-service/user-rooms.ts). Only for a room that exists.
    // The caller's blocks come in the same batch: the room hides whom they blocked
    // (durable/room/blocks.ts), and a block made after this read reaches it the same way.
    const [, found, user, blocked] = await d.batch([
      d
        .insert(roomConnections)
        .select(
          d
            .select({
              userUuid: sql<string>`${claims.sub}`.as("user_uuid"),
              roomUuid: rooms.uuid,
              connectedAt: sql<number>`${Date.now()}`.as("connected_at"),
            })
            .from(rooms)
            .where(eq(rooms.uuid, roomUuid)),
        )
        .onConflictDoUpdate({
          target: [roomConnections.userUuid, roomConnections.roomUuid],
          set: { connectedAt: sql`excluded.connected_at` },
        }),
      findRoom,
      d.select().from(users).where(eq(users.uuid, claims.sub)),
      blockListQuery(d, claims.sub),
    ]);
    room = found[0];
    account = user[0];
    blocks = blocked.map((b) => b.uuid);
  } else if (claims.type === "guest") {
    // A guest's songs heard so far travel with the socket: the free-play limit holds across
    // reconnects and rooms (durable/room/free-plays.ts).
    const [found, heard] = await d.batch([
      findRoom,
      d
        .select({ used: guestPlays.plays, lastPlayId: guestPlays.lastPlayId })
        .from(guestPlays)
        .where(eq(guestPlays.guestUuid, claims.sub)),
    ]);
    room = found[0];
    freePlays = heard[0] ?? { used: 0, lastPlayId: null };
  } else room = await findRoom.get();
  let who;
  try {
    who = callerFrom(claims, account);
  } catch (err) {
    // A banned account (lib/bans.ts): refused here, before any object hears of it.
    if (err instanceof ApiError) return refuse(403, err.message);
    throw err;
  }
  if (!who) return refuse(401, "This session has ended: sign in again to join a room.");
  if (!room) return refuse(404, "There is no such room.");
  // A join ticket from POST /rooms/{id}/join (checked here, where the secret is) lets the
  // object admit this caller to a password-protected room.
  const joined = await ticketAdmits(env, url.searchParams.get("ticket"), room.uuid, claims.sub);
  const headers = new Headers(req.headers);
  // Only the room's relays may say they are one (durable/room/relay-link.ts), never a client.
  headers.delete(RELAY_HEADER);
  headers.delete(RELAY_OF_HEADER);
  headers.set(
    CALLER_HEADER,
    JSON.stringify({
      uuid: who.uuid,
      type: who.type,
      roles: who.roles,
      // The session this socket belongs to: ending sessions closes the sockets of older ones.
      sv: who.user?.sessionVersion ?? 0,
      joined,
      ...(freePlays ? { freePlays } : {}),
      // Even an empty list: it replaces an older one the room may still hold for them.
      ...(hasAccount(claims) ? { blocks, blocksAt } : {}),
      ...(dialect ? { dialect } : {}),
    }),
  );
  return new Request(req, { headers });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return "";
  }
}

import { routePartykitRequest } from "partyserver";
import { RELAY_OF_HEADER, relayName } from "../durable/room/relay-link";
import type { Env } from "./env";
import { authorizeRoomConnection, CALLER_HEADER } from "./room-connect";

/**
 * Where a room socket goes (docs/ARCHITECTURE.md "Stadium rooms"). After the gateway has
 * verified it (room-connect.ts), the Room says how many relays it shards new sockets over
 * (one small RPC, no state read): none below its threshold, and the socket goes to the Room
 * as always; otherwise to the relay `pickRelay` names for this room and caller, which keeps
 * a user's reconnects (and their other tabs) on one relay. The URL a client opens never
 * changes: `/parties/room/<id>` (and /primus for bots, workers/primus.ts).
 */
export async function routeRoomSocket(req: Request, env: Env, dialect?: "ttfm"): Promise<Response> {
  const authorized = await authorizeRoomConnection(req, env, dialect);
  if (authorized instanceof Response) return authorized;
  const room = decodeURIComponent(new URL(authorized.url).pathname.split("/")[3] ?? "");
  const { relays } = await env.Room.getByName(room).relayPlacement();
  if (relays === 0) {
    const res = await routePartykitRequest(authorized, env as never);
    return (
      res ?? Response.json({ statusCode: 404, message: "There is no such room." }, { status: 404 })
    );
  }
  const caller = JSON.parse(authorized.headers.get(CALLER_HEADER)!) as { uuid: string };
  const index = pickRelay(room, caller.uuid, relays);
  const headers = new Headers(authorized.headers);
  headers.set(RELAY_OF_HEADER, JSON.stringify({ room, index }));
  return env.Relay.getByName(relayName(room, index)).fetch(new Request(authorized, { headers }));
}

/**
 * The relay (0..relays-1) of `who` in `room`: rendezvous hashing, the highest score wins. The
 * same caller lands on the same relay for as long as the count stays; when the room adds a
 * relay, only the sockets the new one wins move (about 1 in `relays`), the rest stay put.
 */
export function pickRelay(room: string, who: string, relays: number): number {
  let best = 0;
  let top = -1;
  for (let i = 0; i < relays; i++) {
    const score = fnv1a(`${room}\u0000${who}\u0000${i}`);
    if (score > top) [best, top] = [i, score];
  }
  return best;
}

/** 32-bit FNV-1a with a final avalanche: cheap, stable across isolates and deployments. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

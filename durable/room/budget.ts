/**
 * Budgets: every frame a client sends is paid for from token buckets (a small burst, then a
 * steady refill), per socket and per user, and what everyone receives (animations, chat
 * lines) from room-wide buckets. A frame over budget gets an error and changes nothing; a
 * socket that keeps sending far past its budget is closed (CLOSE_FLOODING).
 *
 * Invariants:
 * - The buckets are in memory, not in SQLite: they are a rate, not state. An object that
 *   hibernated or was evicted had nothing to pay for meanwhile, so a bucket that starts
 *   full again gives a client nothing it could not have had by waiting.
 * - A refused frame costs nothing from the action buckets but one strike; strikes refill
 *   too, so only a sustained flood (not a burst) closes a socket.
 * - Memory stays bounded: a socket's buckets go with the socket; full buckets are dropped
 *   when the map grows (a full bucket and no bucket are the same thing).
 */
import type { Connection } from "partyserver";
import { CLOSE_FLOODING, type ClientMessage, type ServerMessage } from "../../shared/protocol";
import { BUDGET_MSG } from "./messages";
import { send } from "./publisher";

export interface Rate {
  /** Frames that may arrive at once. */
  readonly burst: number;
  /** Frames a second once the burst is spent. */
  readonly perSecond: number;
}

/** Per socket and per user (a user may have a few tabs), by kind of action. */
export const BUDGETS = {
  /** Every action that changes the room (votes, seats, chat, reactions, kicks, animations). */
  act: { socket: { burst: 20, perSecond: 5 }, user: { burst: 30, perSecond: 8 } },
  /** Reads that cost a full answer: joinRoom (the full state), loadChat (a history page). */
  read: { socket: { burst: 10, perSecond: 2 }, user: { burst: 15, perSecond: 3 } },
  /** The clock sync: looser, still bounded. */
  ping: { socket: { burst: 20, perSecond: 5 }, user: { burst: 40, perSecond: 10 } },
} as const satisfies Record<string, { socket: Rate; user: Rate }>;

/** A user's own chat lines and animations (about 5 per 5 s). */
export const USER_CHAT: Rate = { burst: 5, perSecond: 1 };
/** What every socket receives, whoever sends it: chat lines and animations, room-wide. */
export const ROOM_CHAT: Rate = { burst: 20, perSecond: 5 };
export const ROOM_ANIMATIONS: Rate = { burst: 30, perSecond: 10 };
/** Refused frames a socket may send before it is closed (a sustained flood, not a burst). */
export const STRIKES: Rate = { burst: 50, perSecond: 5 };

export type BudgetKind = keyof typeof BUDGETS;

export const kindOf = (action: ClientMessage["action"] | null): BudgetKind =>
  action === "ping" ? "ping" : action === "joinRoom" || action === "loadChat" ? "read" : "act";

const PRUNE_AT = 10_000;

/** Every bucket a socket has: one per kind of action, and its strikes. */
const SOCKET_BUCKETS = [...(Object.keys(BUDGETS) as BudgetKind[]), "strikes"] as const;
const socketKey = (id: string, kind: (typeof SOCKET_BUCKETS)[number]) => `s:${id}:${kind}`;

/** Token buckets by key. */
export class Buckets {
  #b = new Map<string, { tokens: number; at: number; rate: Rate }>();
  constructor(private readonly now: () => number = Date.now) {}

  #level(key: string, rate: Rate, t: number): number {
    const b = this.#b.get(key);
    if (!b) return rate.burst;
    return Math.min(rate.burst, b.tokens + ((t - b.at) / 1000) * rate.perSecond);
  }

  /** Whether every bucket in `keys` has a token; when all do, each pays one (all or nothing). */
  take(...keys: [string, Rate][]): boolean {
    const t = this.now();
    const levels = keys.map(([k, r]) => this.#level(k, r, t));
    if (levels.some((l) => l < 1)) return false;
    if (this.#b.size > PRUNE_AT) this.#prune(t);
    keys.forEach(([k, rate], i) => this.#b.set(k, { tokens: levels[i] - 1, at: t, rate }));
    return true;
  }

  /** Forgets a closed socket's buckets: its keys are known, so this is O(1) per close. */
  forgetSocket(id: string) {
    for (const kind of SOCKET_BUCKETS) this.#b.delete(socketKey(id, kind));
  }

  #prune(t: number) {
    for (const [k, b] of this.#b) if (this.#level(k, b.rate, t) >= b.rate.burst) this.#b.delete(k);
  }
}

/**
 * Pays for one frame from its socket's and its user's buckets. Over budget: an error frame
 * (nothing else happens) and a strike; out of strikes: the socket is closed. Answers
 * whether the frame may be handled.
 */
export function admit(
  buckets: Buckets,
  c: Connection,
  uuid: string,
  action: ClientMessage["action"] | null,
): boolean {
  const kind = kindOf(action);
  const rate = BUDGETS[kind];
  if (buckets.take([socketKey(c.id, kind), rate.socket], [`u:${uuid}:${kind}`, rate.user]))
    return true;
  if (!buckets.take([socketKey(c.id, "strikes"), STRIKES])) {
    try {
      c.close(CLOSE_FLOODING, BUDGET_MSG.flooding);
    } catch {
      /* already closing */
    }
    return false;
  }
  const error: ServerMessage = {
    name: "error",
    params: { message: BUDGET_MSG.over, ...(action ? { action } : {}) },
  };
  send(c, JSON.stringify(error));
  return false;
}

/**
 * A relay's share of `admit` (durable/relay.ts): the socket's own bucket and strikes; the
 * room pays the user's and the room-wide ones when the frame reaches it. Answers "over"
 * (an error frame for the socket) or "flooding" (close it) when the frame may not go on.
 */
export function paySocket(
  buckets: Buckets,
  id: string,
  action: ClientMessage["action"] | null,
): "ok" | "over" | "flooding" {
  const kind = kindOf(action);
  if (buckets.take([socketKey(id, kind), BUDGETS[kind].socket])) return "ok";
  return buckets.take([socketKey(id, "strikes"), STRIKES]) ? "over" : "flooding";
}

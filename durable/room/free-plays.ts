/**
 * The guests' free-play limit (spec 001 Playback: "Guests beyond a free-play limit cannot
 * play"; GUEST_FREE_PLAYS in shared/rooms.ts). room.ts hands song starts and guest
 * connects here.
 *
 * Invariants:
 * - A guest uses one free play per song on air while they have a socket here: counted when
 *   the song starts (for every guest socket) or when they connect during it, and once per
 *   play per guest, however many tabs they hold: every socket of theirs carries the same
 *   count and the last play counted (the gateway reads both from D1 at connect).
 * - The count lives in D1 (guest_plays), written through the room's outbox (effects.ts), so
 *   it survives an eviction, and keyed by play so a retry counts nothing twice.
 * - Each guest socket is told its count (`freePlays`) after its first full state and when it
 *   changes (a socket's first frame is always its full state); the
 *   page does not play a song counted beyond the limit and asks the guest to sign up.
 *   Nothing else changes for a guest over the limit: they still see the room and its chat.
 */
import type { Connection } from "partyserver";
import type { ServerMessage } from "../../shared/protocol";
import { GUEST_FREE_PLAYS } from "../../shared/rooms";
import type { Caller } from "./actions";
import type { Effects } from "./effects";
import { send } from "./publisher";
import type { RoomStorage } from "./storage";

export interface FreePlayCount {
  used: number;
  lastPlayId: string | null;
}

/** The tag every guest socket carries, so a song start reaches them without a scan of all. */
export const GUEST_TAG = "guests";

export class FreePlays {
  constructor(
    private readonly storage: RoomStorage,
    private readonly effects: Effects,
    private readonly guestSockets: () => Iterable<Connection<Caller>>,
    private readonly socketsOf: (uuid: string) => Iterable<Connection<Caller>>,
  ) {}

  /** A song went on air: each guest here has heard one more. */
  songStarted(playId: string) {
    const counted = new Set<string>();
    for (const c of this.guestSockets()) {
      const uuid = c.state?.uuid;
      if (!uuid || counted.has(uuid)) continue;
      if (this.#count(uuid, playId)) counted.add(uuid);
    }
    if (!counted.size) return;
    this.effects.add(`guestPlays:${playId}`, {
      kind: "guestPlays",
      playId,
      guests: [...counted],
    });
    void this.effects.drain();
  }

  /** A guest's socket was admitted: a song on air counts now (the socket is told by `tell`). */
  connected(c: Connection<Caller>) {
    const uuid = c.state?.uuid;
    if (!uuid) return;
    const playId = this.storage.playing()?.play_id ?? null;
    if (!playId || !this.#count(uuid, playId)) return;
    this.effects.add(`guestPlays:${playId}:${uuid}`, {
      kind: "guestPlays",
      playId,
      guests: [uuid],
    });
    void this.effects.drain();
  }

  /** Tells a guest socket its count, right after its full state (a socket's first frame). */
  tell(c: Connection<Caller>) {
    if (c.state?.tokenType === "guest") send(c, message(this.#current(c.state.uuid)));
  }

  /** The count every socket of `uuid` agrees on: the highest any of them carries. */
  #current(uuid: string): FreePlayCount {
    let best: FreePlayCount = { used: 0, lastPlayId: null };
    for (const s of this.socketsOf(uuid)) {
      const f = s.state?.freePlays;
      if (f && f.used >= best.used) best = f;
    }
    return best;
  }

  /** Counts `playId` for `uuid` unless already counted; tells their sockets. */
  #count(uuid: string, playId: string): boolean {
    const now = this.#current(uuid);
    if (now.lastPlayId === playId) return false;
    const next = { used: now.used + 1, lastPlayId: playId };
    const text = message(next);
    for (const s of this.socketsOf(uuid)) {
      if (!s.state) continue;
      s.setState({ ...s.state, roles: [...s.state.roles], freePlays: next });
      // One still waiting for its full state hears the count after it (`tell`).
      if (!s.state.needsState) send(s, text);
    }
    return true;
  }
}

const message = (f: FreePlayCount) =>
  JSON.stringify({
    name: "freePlays",
    params: { used: f.used, limit: GUEST_FREE_PLAYS },
  } satisfies ServerMessage);

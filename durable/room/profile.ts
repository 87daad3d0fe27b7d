/**
 * A person's public face in a room: the chat identity a socket carries (`ChatProfile`, read
 * from D1 at connect, or pushed by refreshUser when the account changes) and the
 * `allUserData[uuid].userProfile` every client holds (shared/protocol.ts UserProfile).
 *
 * Invariants:
 * - One schema bounds a profile wherever it enters the room: a relay's join (relay-link.ts)
 *   and the room-service's refreshUser (rpc.ts). Nothing unbounded reaches the tables.
 * - A change published is a change of `allUserData` only, named `updatedUserProfile`, and
 *   a user's changes are published at most PROFILE_RATE: past it the stored copy still
 *   changes at once, and the next frame that carries `allUserData` (a join, a leave, the
 *   next change within budget) takes it along. A flood of profile edits cannot make a big
 *   room recompute its people every tick.
 */
import { z } from "zod";
import type { TokenType } from "../../shared/roles";
import type { UserProfile } from "../../shared/protocol";
import { Buckets, type Rate } from "./budget";
import { NAMES } from "./messages";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";

/** The chat identity (room/library.ts djFacts reads it from D1), bounded. */
export const chatProfile = z.object({
  name: z.string().max(200),
  avatarId: z.string().max(200),
  color: z.string().max(64),
  badges: z.array(z.string().max(200)).max(100).readonly(),
});
export type ChatProfile = Readonly<z.infer<typeof chatProfile>>;

/** The chat identity of an account row; a user without an avatar shows the default one. */
export function chatProfileOf(row: {
  nickname: string;
  avatarId: string | null;
  color: string;
  badges: readonly string[];
}): ChatProfile {
  return {
    name: row.nickname,
    avatarId: row.avatarId ?? "default",
    color: row.color,
    badges: [...row.badges],
  };
}

/** A user's published profile changes: a few at once, then one every 5 s. */
export const PROFILE_RATE: Rate = { burst: 5, perSecond: 0.2 };

/** allUserData's profile: a guest (or a user D1 did not answer for) gets a made-up name. */
export function roomProfile(uuid: string, type: TokenType, p: ChatProfile | null): UserProfile {
  return {
    uuid,
    nickname: p?.name ?? (type === "guest" ? NAMES.guest(uuid) : NAMES.user(uuid)),
    avatarId: p?.avatarId ?? "default",
    color: p?.color ?? null,
    badges: p ? [...p.badges] : [],
  };
}

const sameProfile = (a: UserProfile | undefined, b: UserProfile) =>
  !!a &&
  a.nickname === b.nickname &&
  a.avatarId === b.avatarId &&
  a.color === b.color &&
  a.badges.length === b.badges.length &&
  a.badges.every((x, i) => x === b.badges[i]);

/** Replaces present users' stored profiles and publishes the change (within PROFILE_RATE). */
export class ProfileChanges {
  readonly #rate: Buckets;
  constructor(
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    now: () => number = Date.now,
  ) {
    this.#rate = new Buckets(now);
  }

  /** The account's profile now, for a user present here; answers whether it changed. */
  apply(uuid: string, profile: ChatProfile): boolean {
    const next = roomProfile(uuid, "user", profile);
    if (sameProfile(this.storage.profile(uuid), next)) return false;
    this.storage.setProfile(uuid, next);
    if (this.#rate.take([`profile:${uuid}`, PROFILE_RATE]))
      this.publisher.mark(["allUserData"], "updatedUserProfile");
    return true;
  }
}

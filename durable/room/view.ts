/**
 * The room state as clients hold it (shared/protocol.ts RoomState), computed from the
 * SQLite tables. Pure reads: nothing here writes.
 *
 * Invariants:
 * - Every top-level key of RoomState has one function here; the publisher recomputes only
 *   the keys a change marked, so a vote never re-reads the user lists.
 * - Users are listed in (joined_at, uuid) order, which never changes while a user stays
 *   (a reconnect keeps its row), so list diffs are inserts and removals only.
 * - canDj is the seat rule itself (seats.ts asks the same function), so the flag a client
 *   sees and the answer it gets when it tries are the same.
 */
import {
  ROOM_SHOWN_USERS,
  type RoomDj,
  type RoomRole,
  type RoomRoleEntry,
  type RoomState,
  type RoomUser,
  type UserData,
} from "../../shared/protocol";
import type { RoomRoleName, RoomSettings } from "../../shared/rooms";
import { assertNever } from "../../shared/json-patch";
import { refusal, type Refusal, type TargetedAction } from "../../shared/permissions";
import type { UserRole } from "../../shared/roles";
import { floorPosition } from "../../shared/floor";
import { CHAT_IN_STATE } from "./chat-storage";
import { NAMES, SEAT_MSG } from "./messages";
import type { DjRow, RoomStorage, UserRow } from "./storage";

export type StateKey = keyof RoomState;
export const STATE_KEYS: readonly StateKey[] = [
  "allUsers",
  "audienceUsers",
  "djs",
  "visibleDjs",
  "floorUsers",
  "allUserData",
  "userCount",
  "audienceCount",
  "nowPlaying",
  "voteCounts",
  "vibeMeter",
  "settings",
  "chat",
  "waitlist",
];
/** Keys that depend on who is present, seated or holding a role. */
export const PEOPLE_KEYS: readonly StateKey[] = [
  "allUsers",
  "audienceUsers",
  "djs",
  "visibleDjs",
  "floorUsers",
  "allUserData",
  "userCount",
  "audienceCount",
  // Who waits moves with who is present and seated (a leave, a kick, a seat taken).
  "waitlist",
];

/** Roles shown as a user's highest, most powerful first; the others are restrictions. */
const HIGHEST_ORDER: readonly RoomRoleName[] = ["owner", "coOwner", "moderator", "dj"];
/** Room roles that may DJ in an INVITE_ONLY room. */
const INVITED: readonly RoomRoleName[] = ["owner", "coOwner", "moderator", "dj"];

/** A snapshot of what the rules need, read once per computation. */
export class RoomView {
  readonly settings: RoomSettings;
  readonly roles: RoomRoleEntry[];
  #byUser = new Map<string, Set<RoomRoleName>>();

  constructor(
    readonly storage: RoomStorage,
    readonly now: number,
  ) {
    this.settings = storage.settings();
    this.roles = storage
      .roles(now)
      .map((r) => ({ userUuid: r.user_uuid, role: r.role, expirationTime: r.expiration_time }));
    for (const r of this.roles) {
      if (!this.#byUser.has(r.userUuid)) this.#byUser.set(r.userUuid, new Set());
      this.#byUser.get(r.userUuid)!.add(r.role);
    }
    // The owner named by the settings holds "owner" whether or not a role row says so.
    if (this.settings.ownerUuid) {
      if (!this.#byUser.has(this.settings.ownerUuid))
        this.#byUser.set(this.settings.ownerUuid, new Set());
      this.#byUser.get(this.settings.ownerUuid)!.add("owner");
    }
  }

  rolesOf(uuid: string): Set<RoomRoleName> {
    return this.#byUser.get(uuid) ?? new Set();
  }

  highestRole(uuid: string): RoomRole | null {
    const held = this.rolesOf(uuid);
    return HIGHEST_ORDER.find((r) => held.has(r)) ?? null;
  }

  /** Why `u` may not DJ here, or null if they may (the seat rule, seed 001 djType). */
  djRefusal(u: Pick<UserRow, "uuid" | "guest" | "email_verified" | "pro">): string | null {
    if (u.guest) return SEAT_MSG.guest;
    const held = this.rolesOf(u.uuid);
    if (held.has("djDisabled") || held.has("banned")) return SEAT_MSG.barred;
    switch (this.settings.djType) {
      case "EVERYONE":
        return null;
      case "VERIFIED_ONLY":
        return u.email_verified ? null : SEAT_MSG.verifiedOnly;
      case "PRO_PLAN_OWNER":
        return u.pro ? null : SEAT_MSG.subscribersOnly;
      case "INVITE_ONLY":
        return INVITED.some((r) => held.has(r)) ? null : SEAT_MSG.inviteOnly;
      default:
        return assertNever(this.settings.djType);
    }
  }

  /**
   * Why `actor` may not do `action` to `target` (another user, or null for no one): the one
   * table in shared/permissions.ts, the same REST asks.
   */
  refusalFor(
    actor: { uuid: string; roles: readonly UserRole[] },
    action: TargetedAction,
    target: string | null,
  ): Refusal | null {
    return refusal(
      { uuid: actor.uuid, held: this.rolesOf(actor.uuid), platformRoles: actor.roles },
      { action },
      target === null ? null : { uuid: target, held: this.rolesOf(target) },
    );
  }

  toUser(u: UserRow): RoomUser {
    return {
      uuid: u.uuid,
      tokenRole: u.token_role,
      highestRole: this.highestRole(u.uuid),
      canDj: this.djRefusal(u) === null,
    };
  }

  #shown: UserRow[] | null = null;
  #seats: DjRow[] | null = null;
  #seated: Set<string> | null = null;
  #counts: { users: number; audience: number } | null = null;

  /** How many are present (guests excepted) and how many are not seated: one read per view. */
  counts(): { users: number; audience: number } {
    return (this.#counts ??= this.storage.presentCounts([...this.seated()]));
  }

  /** Who is in a DJ seat now (read once per view). */
  seated(): Set<string> {
    return (this.#seated ??= new Set(this.#seatRows().map((d) => d.uuid)));
  }

  /** The seats in play order, read once per view (djs, visibleDjs and the lists all ask). */
  #seatRows(): DjRow[] {
    return (this.#seats ??= this.storage.djs());
  }

  /**
   * The present people the lists name, in (joined_at, uuid) order: everyone the room must
   * show whatever its size (the DJs, the waiting list, holders of a room role that shows:
   * owner, co-owner, moderator, dj; at most ROOM_SHOWN_USERS of those role holders), then
   * the first ROOM_SHOWN_USERS arrivals. Read once per view; bounded whatever the crowd, so a
   * join past the cap recomputes two small queries and publishes only the counts.
   */
  shown(): UserRow[] {
    if (this.#shown) return this.#shown;
    const always = new Set([...this.seated(), ...this.storage.waitlist.list()]);
    let holders = 0;
    for (const [uuid, held] of this.#byUser) {
      if (holders >= ROOM_SHOWN_USERS) break;
      if (HIGHEST_ORDER.some((r) => held.has(r)) && !always.has(uuid)) {
        always.add(uuid);
        holders++;
      }
    }
    return (this.#shown = this.storage.shownUsers([...always], ROOM_SHOWN_USERS));
  }

  /** The value of one state key. */
  compute(key: StateKey): RoomState[StateKey] {
    switch (key) {
      case "allUsers":
        return this.shown()
          .filter((u) => !u.guest)
          .map((u) => this.toUser(u));
      // Ghosts never get a row in room_users, so floorUsers is audienceUsers by construction.
      case "audienceUsers":
      case "floorUsers": {
        const seated = this.seated();
        return this.shown()
          .filter((u) => !seated.has(u.uuid))
          .map((u) => this.toUser(u));
      }
      case "djs":
      case "visibleDjs":
        return this.djs();
      case "userCount":
        return this.counts().users;
      case "audienceCount":
        return this.counts().audience;
      case "allUserData": {
        const shown = this.shown();
        const profiles = this.storage.profilesOf(shown.map((u) => u.uuid));
        const out: Record<string, UserData> = {};
        for (const u of shown) {
          const userProfile = profiles.get(u.uuid) ?? {
            uuid: u.uuid,
            nickname: u.guest ? NAMES.guest(u.uuid) : "",
            avatarId: "default",
            color: null,
            badges: [],
          };
          out[u.uuid] = { userProfile, position: floorPosition(u.uuid) };
        }
        return out;
      }
      case "nowPlaying":
        return this.storage.nowPlaying();
      case "voteCounts":
        return this.storage.votes.counts(this.storage.playing()?.play_id ?? null);
      case "vibeMeter": {
        const c = this.storage.votes.counts(this.storage.playing()?.play_id ?? null);
        const v = (c.likes - c.dislikes) / Math.max(1, this.storage.activeCount(this.now));
        return Math.max(-1, Math.min(1, Math.round(v * 1000) / 1000));
      }
      case "settings":
        return { ...this.settings, roomRoles: this.roles };
      case "chat":
        return this.storage.chat.page(null, CHAT_IN_STATE);
      case "waitlist":
        return this.storage.waitlist.list();
      default:
        return assertNever(key);
    }
  }

  djs(): RoomDj[] {
    const seats = this.#seatRows();
    const users = new Map(this.storage.usersIn(seats.map((d) => d.uuid)).map((u) => [u.uuid, u]));
    return seats.flatMap((d) => {
      const u = users.get(d.uuid);
      // A seat without a present user cannot last (the grace end removes both), but a
      // seat is never shown for someone the lists do not know.
      return u
        ? [{ ...this.toUser(u), nextSong: d.next_song ? JSON.parse(d.next_song) : null }]
        : [];
    });
  }

  full(): RoomState {
    return Object.fromEntries(STATE_KEYS.map((k) => [k, this.compute(k)])) as unknown as RoomState;
  }
}

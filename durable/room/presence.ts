/**
 * Who is in the room: the caller each socket carries, admission at connect, and presence
 * with its grace. room.ts's partyserver hooks (getConnectionTags, onConnect, onClose,
 * onError, the alarm's grace entries and the boot) hand their sockets to this module.
 *
 * Invariants:
 * - Every connection carries a caller verified by the gateway (`x-hangout-caller`, set by
 *   workers/room-connect.ts). Without one it is closed with 4001 before it sees anything; a
 *   deleted or never set-up room (room/identity.ts) closes it with 4004 next.
 *   The caller (with the DJ facts read from D1 at connect) lives in the socket attachment;
 *   the user's blocks, read by the gateway too, in room/blocks.ts (too big for it).
 * - A password-protected room admits only sockets that went through the REST join (or its
 *   owner); a banned or kicked user is refused before anything else is read.
 * - A user is present from their first socket until 30 s (GRACE_MS) after their last one
 *   closed without a new one arriving: the grace end (a schedule entry) removes them, and
 *   their seat with them. A reconnect inside the grace keeps the user's place and seat.
 * - Ghost sockets watch: they are never present, never listed, never in a grace.
 * - Sockets are tagged with their user (`userTag`), so "this user's sockets" is a lookup.
 */
import type { Connection, ConnectionContext } from "partyserver";
import { z } from "zod";
import { CLOSE_UNAUTHORIZED, type TokenRole } from "../../shared/protocol";
import { TOKEN_TYPES, USER_ROLES, type TokenType, type UserRole } from "../../shared/roles";
import type { Env } from "../../workers/env";
import { CALLER_HEADER } from "../../workers/room-connect";
import { MAX_BLOCKS } from "../../workers/social-service/blocks";
import type { Caller } from "./actions";
import { djFacts } from "./library";
import { CONNECT_MSG } from "./messages";
import { roomProfile } from "./profile";
import { GUEST_TAG, type FreePlays } from "./free-plays";
import type { Identity } from "./identity";
import type { Moderation } from "./moderation";
import type { Playback } from "./playback";
import type { Publisher } from "./publisher";
import { GRACE_MS, type RoomStorage } from "./storage";
import { PEOPLE_KEYS } from "./view";

const callerHeader = z.object({
  uuid: z.string().min(1).max(64),
  type: z.enum(TOKEN_TYPES),
  // Unknown role names are dropped rather than refused: the gateway verified the token.
  roles: z
    .array(z.string())
    .transform((rs) =>
      rs.filter((r): r is UserRole => (USER_ROLES as readonly string[]).includes(r)),
    ),
  /** The account's session version the gateway checked (0 for guests and ghosts). */
  sv: z.number().int().min(0).default(0),
  /** The gateway verified a join ticket (the password was checked by the REST join). */
  joined: z.boolean().default(false),
  /** A guest's songs heard so far, from D1 (room/free-plays.ts). */
  freePlays: z
    .object({ used: z.number().int().min(0), lastPlayId: z.string().max(64).nullable() })
    .optional(),
  /** Whom the account blocked (room/blocks.ts), read from D1 at `blocksAt`. */
  blocks: z.array(z.string().min(1).max(64)).max(MAX_BLOCKS).default([]),
  blocksAt: z.number().default(0),
  /** The gateway's /primus bridge: this socket speaks the tt.live bot dialect. */
  dialect: z.literal("ttfm").optional(),
});

/** Token roles from most to least powerful: a token with several shows the first it holds. */
const ROLE_PRECEDENCE: readonly UserRole[] = [
  "superUser",
  "admin",
  "globalModerator",
  "moderator",
  "staff",
  "promoter",
  "bot",
  "user",
];

export function tokenRoleOf(p: { tokenType: TokenType; roles: readonly UserRole[] }): TokenRole {
  if (p.tokenType === "guest") return "guest";
  return (
    ROLE_PRECEDENCE.find((r) => p.roles.includes(r)) ?? (p.tokenType === "bot" ? "bot" : "user")
  );
}

/** Connections are tagged with their user, so "this user's sockets" is a lookup, not a scan. */
export const userTag = (uuid: string) => `u:${uuid}`;
/** The schedule entries of grace ends: `grace:<uuid>`. */
export const GRACE_PREFIX = "grace:";
const graceKey = (uuid: string) => `${GRACE_PREFIX}${uuid}`;

/** A socket's verified caller, as the gateway wrote it (or a relay forwarded it). */
export type CallerHeader = z.infer<typeof callerHeader>;
/** What the room reads from D1 for a user at connect (a relay reads it for its sockets). */
export type Facts = Awaited<ReturnType<typeof djFacts>>;

/** A caller (parsed JSON), or null when it is malformed. */
export function parseCaller(value: unknown): CallerHeader | null {
  const parsed = callerHeader.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The caller the gateway put on the upgrade request, or null when it is missing or malformed. */
export function callerOf(ctx: ConnectionContext): CallerHeader | null {
  return parseCaller(safeJson(ctx.request.headers.get(CALLER_HEADER)));
}

export class Presence {
  constructor(
    private readonly env: Env,
    private readonly storage: RoomStorage,
    private readonly publisher: Publisher<Caller>,
    private readonly moderation: Moderation,
    private readonly identity: Identity,
    private readonly playback: Playback,
    private readonly freePlays: FreePlays,
    private readonly socketsOf: (uuid: string) => Iterable<Connection>,
    private readonly rearm: () => void,
  ) {}

  /** The tags of a new socket (partyserver's getConnectionTags): its user's. */
  tags(caller: CallerHeader | null): string[] {
    if (!caller) return [];
    return caller.type === "guest" ? [userTag(caller.uuid), GUEST_TAG] : [userTag(caller.uuid)];
  }

  /**
   * Admits a socket, or closes it with the reason; an admitted non-ghost user is present.
   * `given` facts (a relay read them) spare the room its D1 read.
   */
  async connect(
    connection: Connection<Caller>,
    caller: CallerHeader | null,
    given: Facts | null = null,
  ) {
    if (!caller) {
      // Only reachable by going around the gateway, which always sets the header or answers 401.
      connection.close(CLOSE_UNAUTHORIZED, CONNECT_MSG.unauthorized);
      return;
    }
    const { uuid, type, roles, sv, joined, freePlays, blocks, blocksAt, dialect } = caller;
    // A deleted room, or one never set up, admits nobody (room/identity.ts).
    const gone = this.identity.refusal();
    if (gone) return this.identity.close(connection, gone);
    const refused = this.moderation.entryRefusal(uuid);
    if (refused) return this.moderation.refuse(connection, refused);
    // A password-protected room admits only sockets that went through the REST join.
    const settings = this.storage.settings();
    if (
      (settings.isPasswordProtected || settings.isGuestPasswordProtected) &&
      !joined &&
      settings.ownerUuid !== uuid
    ) {
      connection.send(
        JSON.stringify({
          name: "error",
          params: { message: CONNECT_MSG.passwordProtected },
        }),
      );
      connection.close(CLOSE_UNAUTHORIZED, CONNECT_MSG.joinTicket);
      return;
    }
    const user = type === "user" || type === "bot";
    // Read once per connection: the token says neither whether the e-mail is verified nor
    // whether the user subscribes, and the seat rule needs both.
    const none = { emailVerified: false, pro: false, profile: null };
    const facts = !user ? none : (given ?? (await djFacts(this.env, uuid).catch(() => none)));
    if (connection.readyState !== WebSocket.OPEN) return; // it closed while D1 answered
    // Before the socket is admitted: its full state already hides whom the user blocked.
    this.publisher.setBlocks(uuid, blocks, blocksAt);
    connection.setState({
      uuid,
      tokenType: type,
      roles,
      sv,
      ...facts,
      ...(type === "guest" ? { freePlays: freePlays ?? { used: 0, lastPlayId: null } } : {}),
      ...(dialect ? { dialect } : {}),
      needsState: true,
    });
    if (type === "guest") this.freePlays.connected(connection);
    if (type !== "ghost") {
      const known = this.storage.user(uuid);
      this.storage.upsertUser(
        {
          uuid,
          token_role: tokenRoleOf({ tokenType: type, roles }),
          guest: type === "guest" ? 1 : 0,
          email_verified: facts.emailVerified ? 1 : 0,
          pro: facts.pro ? 1 : 0,
        },
        Date.now(),
      );
      // allUserData's profile: D1's at connect, then refreshUser's (room/profile.ts).
      this.storage.setProfile(uuid, roomProfile(uuid, type, facts.profile));
      if (known?.disconnected_at != null) {
        this.storage.unschedule(graceKey(uuid));
        this.rearm();
      }
      // A second tab, or a return inside the grace, changes no list; the diff finds that.
      this.publisher.mark(PEOPLE_KEYS, "userJoined");
    }
    // The newcomer's full state goes out with the next (narrow) tick, already including them.
    this.publisher.admit(connection);
  }

  /** The user's last socket closed: their grace starts (the lists change only when it ends). */
  socketGone(connection: Connection<Caller>) {
    const who = connection.state;
    if (!who || who.tokenType === "ghost" || this.hasSocket(who.uuid, connection.id)) return;
    if (!this.storage.user(who.uuid)) return; // kicked or banned: already removed
    this.#startGrace(who.uuid, Date.now());
    this.rearm();
  }

  /** After eviction: users whose sockets vanished without a close start their grace now (the caller rearms). */
  recover(now: number) {
    for (const u of this.storage.users()) {
      if (u.disconnected_at !== null || this.hasSocket(u.uuid)) continue;
      this.#startGrace(u.uuid, now);
    }
  }

  #startGrace(uuid: string, now: number) {
    this.storage.markDisconnected(uuid, now);
    this.storage.schedule(graceKey(uuid), now + GRACE_MS);
  }

  /** The grace of `uuid` ended: still without a socket, they leave (and their seat with them). */
  graceEnded(uuid: string) {
    const u = this.storage.user(uuid);
    if (!u || u.disconnected_at === null || this.hasSocket(uuid)) return;
    this.storage.deleteUser(uuid);
    this.publisher.mark(PEOPLE_KEYS, "userLeft");
    this.playback.removeFromStage(uuid, "userLeft");
  }

  hasSocket(uuid: string, except?: string): boolean {
    for (const c of this.socketsOf(uuid)) if (c.id !== except) return true;
    return false;
  }
}

function safeJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

import { eq } from "drizzle-orm";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import {
  DJ_TYPES,
  ROOM_DESIGNS,
  ROOM_GENRES,
  ROOM_ROLES,
  ROOM_TYPES,
  type RoomRoleName,
} from "../../shared/rooms";
import { MUSIC_PROVIDERS } from "../../shared/songs";
import { db } from "../db/client";
import { rooms, type RoomRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { ApiError, conflict, forbidden, isUniqueViolation } from "../lib/errors";
import { hashPassword } from "../lib/password";
import { purposeKey } from "../lib/purpose-keys";
import { takeAttempt } from "../lib/rate-limit";
import { roomStub, withTimeout } from "./room-dto";
import { MSG } from "./messages";

/** Room lookups, access rules, slugs and the field shapes every room route validates with. */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const list = (xs: readonly string[]) => xs.join(", ");

/**
 * A slug is lowercase [a-z0-9-], 3..50. All-digit and uuid-shaped slugs are refused, so
 * `{id}` in a path always means one thing: digits an id, a uuid a uuid, anything else a slug.
 */
export const slugField = z
  .string({ error: "slug must be a string" })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9-]{3,50}$/, "slug must be 3 to 50 characters of a-z, 0-9 and -")
  .refine((s) => !/^\d+$/.test(s), "slug must not be only digits")
  .refine((s) => !UUID_RE.test(s), "slug must not look like a UUID");

const bool = (name: string) => z.boolean({ error: `${name} must be a boolean` });
const int = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be an integer`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);
const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .max(max, `${name} must be at most ${max} characters`);
/** A password: a string sets it, null removes it. */
const secret = (name: string) =>
  z
    .string({ error: `${name} must be a string or null` })
    .min(1, `${name} must not be empty`)
    .max(128, `${name} must be at most 128 characters`)
    .nullable();

/** Every enum is checked (seed 001: the same enumerations on create and every update). */
export const roomFields = {
  name: text("name", 100).min(1, "name must not be empty"),
  slug: slugField,
  description: text("description", 2000).nullable(),
  vibe: text("vibe", 100).nullable(),
  djType: z.enum(DJ_TYPES, { error: `djType must be one of ${list(DJ_TYPES)}` }),
  type: z.enum(ROOM_TYPES, { error: `type must be one of ${list(ROOM_TYPES)}` }),
  design: z.enum(ROOM_DESIGNS, { error: `design must be one of ${list(ROOM_DESIGNS)}` }),
  genre: z.enum(ROOM_GENRES, { error: `genre must be one of ${list(ROOM_GENRES)}` }).nullable(),
  musicProviderKeys: z
    .array(
      z.enum(MUSIC_PROVIDERS, {
        error: `musicProviderKeys must hold only ${list(MUSIC_PROVIDERS)}`,
      }),
      { error: "musicProviderKeys must be a list" },
    )
    .max(MUSIC_PROVIDERS.length)
    .transform((ks) => [...new Set(ks)]),
  numberOfDjs: int("numberOfDjs", 1, 10),
  songsPerDj: int("songsPerDj", 1, 100).nullable(),
  roomSize: int("roomSize", 1, 10000),
  entryFee: int("entryFee", 0, 1_000_000),
  freeEntries: int("freeEntries", 0, 1_000_000),
  password: secret("password"),
  guestPassword: secret("guestPassword"),
  unlisted: bool("unlisted"),
  hasChat: bool("hasChat"),
  isLive: bool("isLive"),
  liveAudio: bool("liveAudio"),
  promoted: bool("promoted"),
  maxSongSeconds: int("maxSongSeconds", 30, 3 * 3600),
  afkMinutes: int("afkMinutes", 0, 240),
  autoSkipRatio: z
    .number({ error: "autoSkipRatio must be a number" })
    .min(0, "autoSkipRatio must be at least 0")
    .max(1, "autoSkipRatio must be at most 1"),
  repeatWindowMinutes: int("repeatWindowMinutes", 0, 24 * 60),
};

/** At least one key present, or a 400 that says what could be sent. */
export const nonEmpty = <T extends z.ZodRawShape>(shape: T) =>
  z
    .strictObject(shape, {
      error: (i) =>
        i.code === "unrecognized_keys"
          ? `Unknown field(s): ${i.keys.join(", ")}`
          : "body must be a JSON object",
    })
    .refine(
      (b) => Object.values(b).some((v) => v !== undefined),
      `Nothing to update: send one of ${Object.keys(shape).join(", ")}.`,
    );

/** `{id}` in a path: a numeric id, a uuid or a slug (any case). */
export const roomIdParam = z.object({
  id: z.string().trim().min(1, "id is required").max(64, "id is too long"),
});

export async function findRoom(env: Env, idOrSlug: string): Promise<RoomRow | undefined> {
  const key = idOrSlug.trim().toLowerCase();
  const where = /^\d+$/.test(key)
    ? eq(rooms.id, Number(key))
    : UUID_RE.test(key)
      ? eq(rooms.uuid, key)
      : eq(rooms.slug, key);
  return db(env).select().from(rooms).where(where).get();
}

export async function roomOr404(env: Env, idOrSlug: string): Promise<RoomRow> {
  const room = await findRoom(env, idOrSlug);
  if (!room) throw new ApiError(404, MSG.roomNotFound);
  return room;
}

export const isAdmin = (who: Pick<Caller, "roles"> | undefined) =>
  !!who?.roles.some((r) => ADMIN_ROLES.includes(r));

/**
 * The room roles the live object holds, still in force. Roles live in the object (issue 4),
 * not in D1; if it cannot answer, nobody holds one, so an outage never grants access.
 */
export async function activeRoomRoles(
  env: Env,
  roomUuid: string,
  userUuid: string,
): Promise<RoomRoleName[]> {
  try {
    const state = (await withTimeout((await roomStub(env, roomUuid)).getState(), 3000)) as {
      settings?: { roomRoles?: unknown };
      roomRoles?: unknown;
    } | null;
    const roles = state?.settings?.roomRoles ?? state?.roomRoles;
    if (!Array.isArray(roles)) return [];
    const now = Date.now();
    return roles
      .filter((r) => r?.userUuid === userUuid && (ROOM_ROLES as readonly string[]).includes(r.role))
      .filter((r) => r.expirationTime == null || new Date(r.expirationTime).getTime() > now)
      .map((r) => r.role as RoomRoleName);
  } catch {
    return [];
  }
}

/**
 * Throws 403 unless the caller is the owner, an admin, or holds one of `roomRoles` in the
 * room. The D1 owner and admin checks come first, so the object is asked only when needed.
 */
export async function requireRoomAccess(
  env: Env,
  room: RoomRow,
  who: Caller,
  roomRoles: readonly RoomRoleName[],
  message: string,
) {
  if (room.ownerUuid === who.uuid || isAdmin(who)) return;
  if (roomRoles.length > 0) {
    const held = await activeRoomRoles(env, room.uuid, who.uuid);
    if (held.some((r) => roomRoles.includes(r))) return;
  }
  throw forbidden(message);
}

/**
 * A slug from a name: "My Room!" → "my-room", cut to `maxLength`, padded or suffixed to stay
 * valid (rooms and communities share the rule; only the cut and the empty prefix differ).
 */
export function slugFrom(name: string, maxLength: number, emptyPrefix: string): string {
  let s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, maxLength)
    .replace(/-+$/g, "");
  // Too short, all digits or uuid-shaped would fail the slug field: a random tail fixes all three.
  if (s.length < 3 || /^\d+$/.test(s) || UUID_RE.test(s))
    s = `${s ? `${s}-` : emptyPrefix}${randomTail()}`;
  return s;
}

/** A slug from a room's name: "My Room!" → "my-room", padded or suffixed to stay valid. */
export const slugFromName = (name: string) => slugFrom(name, 44, "room-");
export const randomTail = () => crypto.randomUUID().slice(0, 5);

/**
 * 16 bits of HMAC-SHA256(room-password purpose key, password): an index for POST /rooms/list
 * that narrows the PBKDF2 checks to a few rooms. 65,536 buckets leak almost nothing (each
 * bucket holds a 1/65,536 share of all passwords) and the key never leaves the server.
 */
export async function passwordBucket(env: Env, password: string): Promise<number> {
  const key = await purposeKey(env, "roomPasswordBucket");
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(password)),
  );
  return (mac[0] << 8) | mac[1];
}

/** Column values for `password` / `guestPassword` in a body: hash what is set, clear null. */
export async function passwordColumns(
  env: Env,
  body: { password?: string | null; guestPassword?: string | null },
) {
  const out: Partial<Pick<RoomRow, "passwordHash" | "passwordBucket" | "guestPasswordHash">> = {};
  if (body.password !== undefined) {
    out.passwordHash = body.password === null ? null : await hashPassword(body.password);
    out.passwordBucket = body.password === null ? null : await passwordBucket(env, body.password);
  }
  if (body.guestPassword !== undefined)
    out.guestPasswordHash =
      body.guestPassword === null ? null : await hashPassword(body.guestPassword);
  return out;
}

/** Applies a validated update to the row (never the password fields in plain text) and returns the new row. */
export async function updateRoom(
  env: Env,
  room: RoomRow,
  body: Record<string, unknown>,
): Promise<RoomRow> {
  const { password, guestPassword, ...rest } = body as {
    password?: string | null;
    guestPassword?: string | null;
  } & Partial<RoomRow>;
  const set = {
    ...rest,
    ...(await passwordColumns(env, { password, guestPassword })),
    updatedAt: Date.now(),
  };
  // A slug change can lose a race to another room's insert: that is the 409, not a 500.
  const row = await db(env)
    .update(rooms)
    .set(set)
    .where(eq(rooms.id, room.id))
    .returning()
    .get()
    .catch((err) => {
      throw isUniqueViolation(err) ? conflict(MSG.slugTaken) : err;
    });
  if (!row) throw new ApiError(404, MSG.roomNotFound);
  return row;
}

/**
 * Takes one edit from the room's budget (30 a minute, whoever edits) or throws 429. Every
 * edit is pushed to the object and may start or stop its song (isLive, liveAudio), so a
 * script flapping a setting would make every listener pay for it; 30 a minute is far above
 * what a person at a settings form does. Called after the access check, so only people
 * who may edit the room can spend its budget.
 */
export async function budgetRoomEdit(env: Env, roomUuid: string): Promise<void> {
  await takeAttempt(env, [{ rule: "roomEdit", key: roomUuid }], MSG.tooManyEdits);
}

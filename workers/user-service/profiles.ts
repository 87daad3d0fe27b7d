import { and, count, desc, eq, gte, inArray } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { users, type UserRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAnyToken, requireService, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { cleanText, fields, valid } from "../lib/validate";
import { findAnyUserOr404, findUserOr404, toOtherProfile, toOwnProfile } from "./accounts";
import { assertMayWear } from "../merch-service/avatars/avatar-rules";
import { changesRoomFace, tellUserRooms } from "../room-service/user-rooms";
import { takeAttempt } from "../lib/rate-limit";
import { MSG } from "./messages";

/** Profiles: one's own, other people's, client settings, socials, and the service feeds. */
export const profileRoutes = new Hono<AppEnv>();

/** `{id}` in a path: an account's numeric id or its uuid. */
export const idOrUuid = z.object({
  id: z
    .string()
    .refine(
      (s) => /^\d{1,15}$/.test(s) || z.uuid().safeParse(s).success,
      "id must be a UUID or a numeric id",
    ),
});

export const ZODIAC_SIGNS = [
  "aries",
  "taurus",
  "gemini",
  "cancer",
  "leo",
  "virgo",
  "libra",
  "scorpio",
  "sagittarius",
  "capricorn",
  "aquarius",
  "pisces",
] as const;

/** An optional free-text field: trimmed, bounded, clean (a bio may break lines), and "" or null clears it. */
const clearable = (name: string, max: number, multiline = false) =>
  z
    .string({ error: `${name} must be a string or null` })
    .trim()
    .max(max, `${name} must be at most ${max} characters`)
    .refine(
      (s) => cleanText(s, multiline),
      `${name} must not contain control characters or broken unicode`,
    )
    .transform((s) => s || null)
    .nullable()
    .optional();

const atLeastOne = (o: object) => Object.keys(o).length > 0;

/** The fields of a profile edit, one's own (POST /users/profile) or an admin's (profile-admin). */
export const profileFields = {
  nickname: fields.nickname.optional(),
  firstName: clearable("firstName", 50),
  lastName: clearable("lastName", 50),
  color: fields.color.optional(),
  avatarId: clearable("avatarId", 100),
  pronoun: clearable("pronoun", 30),
  displayPronouns: z.boolean({ error: "displayPronouns must be a boolean" }).optional(),
  // Stored lowercase whatever the client's casing, so filters and clients agree on one form.
  zodiac: z
    .string({ error: "zodiac must be a string or null" })
    .trim()
    .toLowerCase()
    .pipe(z.enum(ZODIAC_SIGNS, { error: `zodiac must be one of ${ZODIAC_SIGNS.join(", ")}` }))
    .nullable()
    .optional(),
  bio: clearable("bio", 300, true),
  songOfTheWeek: clearable("songOfTheWeek", 200),
  priceForGig: z
    .number({ error: "priceForGig must be a number" })
    .int("priceForGig must be a whole number")
    .min(0, "priceForGig must not be negative")
    .max(1_000_000_000, "priceForGig must be at most 1000000000")
    .nullable()
    .optional(),
};
const profileUpdate = z.strictObject(profileFields).refine(atLeastOne, MSG.profileUpdateEmpty);

const handle = (name: string) => clearable(name, 100);
export const socialFields = {
  facebook: handle("facebook"),
  instagram: handle("instagram"),
  twitter: handle("twitter"),
  snapchat: handle("snapchat"),
  tiktok: handle("tiktok"),
};
const socialsUpdate = z.strictObject(socialFields).refine(atLeastOne, MSG.socialsUpdateEmpty);

/** Writes the changed fields of the caller's row and answers the fresh own profile. */
async function updateOwn(env: Env, userId: number, changes: Partial<UserRow>) {
  const row = await db(env)
    .update(users)
    .set({ ...changes, updatedAt: Date.now() })
    .where(eq(users.id, userId))
    .returning()
    .get();
  return toOwnProfile(row);
}

profileRoutes.get("/users/profile", requireUser, (c) => c.json(toOwnProfile(caller(c).user)));

profileRoutes.post("/users/profile", requireUser, valid("json", profileUpdate), async (c) => {
  const changes = c.req.valid("json");
  const me = caller(c).user;
  // A user wears only an avatar they may use (issue 6); clearing it is always allowed.
  if (changes.avatarId) await assertMayWear(c.env, me, changes.avatarId);
  // Budgeted before the write: a refused edit changes nothing and tells no room.
  if (changesRoomFace(changes))
    await takeAttempt(c.env, [{ rule: "roomFaceEdit", key: me.uuid }], MSG.tooManyProfileEdits);
  const profile = await updateOwn(c.env, me.id, changes);
  // The rooms I am in show my new name or avatar now, not when I reconnect.
  if (changesRoomFace(changes)) await tellUserRooms(c.env, profile.uuid);
  return c.json(profile);
});

profileRoutes.post("/users/user-socials", requireUser, valid("json", socialsUpdate), async (c) => {
  return c.json(await updateOwn(c.env, caller(c).user.id, c.req.valid("json")));
});

/**
 * Another person's profile by uuid; by numeric id only for admins. Sequential ids let anyone
 * walk every account from 1 upward (issue 13: "public profiles by opaque uuid, sequential ids
 * only for admins"); to everyone else a numeric id is as unknown as a missing account.
 */
async function otherProfile(c: Context<AppEnv>, id: string) {
  const who = c.get("caller");
  if (/^\d+$/.test(id) && !who?.roles.some((r) => ADMIN_ROLES.includes(r)))
    throw new ApiError(404, MSG.profileNotFound);
  return c.json(toOtherProfile(await findUserOr404(c.env, id)));
}

/** GET /profile/{id}: public, no token needed; a deactivated account is "not found". */
profileRoutes.get("/profile/:id", valid("param", idOrUuid), (c) =>
  otherProfile(c, c.req.valid("param").id),
);

profileRoutes.get("/profile/:id/service", requireService, valid("param", idOrUuid), async (c) =>
  c.json(toOwnProfile(await findAnyUserOr404(c.env, c.req.valid("param").id))),
);

profileRoutes.get("/users/user/:id", requireAnyToken, valid("param", idOrUuid), (c) =>
  otherProfile(c, c.req.valid("param").id),
);

export const MAX_PROFILES_PER_CALL = 150;
/** D1 binds at most 100 parameters per statement; the deactivated flag takes one more. */
const IN_CHUNK = 90;

const profilesQuery = z.object({
  // `users=a,b` or `users=a&users=b`; blanks from a trailing comma are ignored.
  users: z
    .union([z.string(), z.array(z.string())], {
      error: "users is required: a comma-separated list of user UUIDs",
    })
    .transform((v) =>
      [v]
        .flat()
        .join(",")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.uuid({ error: "each id must be a UUID" }))
        .min(1, "users must list at least one id")
        .max(MAX_PROFILES_PER_CALL, `users must list at most ${MAX_PROFILES_PER_CALL} ids`),
    ),
});

/** GET /users/profiles?users=...: public profiles in the order asked; unknown ones left out. */
profileRoutes.get("/users/profiles", requireAnyToken, valid("query", profilesQuery), async (c) => {
  const wanted = [...new Set(c.req.valid("query").users)];
  const d = db(c.env);
  const chunks: string[][] = [];
  for (let i = 0; i < wanted.length; i += IN_CHUNK) chunks.push(wanted.slice(i, i + IN_CHUNK));
  const found = (
    await Promise.all(
      chunks.map((ids) =>
        d
          .select()
          .from(users)
          .where(and(inArray(users.uuid, ids), eq(users.deactivated, false)))
          .all(),
      ),
    )
  ).flat();
  const byUuid = new Map(found.map((u) => [u.uuid, u]));
  return c.json(
    wanted.flatMap((uuid) => (byUuid.has(uuid) ? [toOtherProfile(byUuid.get(uuid)!)] : [])),
  );
});

/** Client settings are small by design: the serialized object is capped at 16 KB. */
export const USER_DATA_MAX_BYTES = 16 * 1024;
const userDataTooLarge = (n?: number) =>
  new ApiError(413, MSG.userDataTooLarge(USER_DATA_MAX_BYTES, n));

// Without this a PUT with another Content-Type would reach the validator as {} and wipe
// the settings; a replace must say what it replaces with.
const jsonOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(c.req.header("Content-Type") ?? ""))
    throw new ApiError(415, MSG.userDataNotJson);
  await next();
});

profileRoutes.get("/users/profile/user-data", requireUser, (c) => c.json(caller(c).user.userData));

profileRoutes.put(
  "/users/profile/user-data",
  requireUser,
  // Raw bodies may carry whitespace, so allow some room before parsing; the exact cap is
  // on the compact serialization below.
  bodyLimit({
    maxSize: 4 * USER_DATA_MAX_BYTES,
    onError: () => {
      throw userDataTooLarge();
    },
  }),
  jsonOnly,
  valid("json", z.record(z.string(), z.unknown()), MSG.userDataNotObject),
  async (c) => {
    const data = c.req.valid("json");
    const bytes = new TextEncoder().encode(JSON.stringify(data)).length;
    if (bytes > USER_DATA_MAX_BYTES) throw userDataTooLarge(bytes);
    const row = await db(c.env)
      .update(users)
      .set({ userData: data, updatedAt: Date.now() })
      .where(eq(users.id, caller(c).user.id))
      .returning()
      .get();
    return c.json(row.userData);
  },
);

profileRoutes.get("/users/capabilities", requireUser, (c) =>
  c.json({ capabilities: caller(c).user.capabilities }),
);

/** GET /users/service/all-user-profiles: every account, oldest first, for other services. */
profileRoutes.get(
  "/users/service/all-user-profiles",
  requireService,
  valid("query", takeSkip()),
  async (c) => {
    const { take, skip } = c.req.valid("query");
    const d = db(c.env);
    const [rows, [{ total }]] = await Promise.all([
      d.select().from(users).orderBy(users.id).limit(take).offset(skip).all(),
      d.select({ total: count() }).from(users).all(),
    ]);
    return c.json({ data: rows.map(toOwnProfile), total });
  },
);

profileRoutes.get(
  "/users/service/:id/user-profile",
  requireService,
  valid("param", idOrUuid),
  async (c) => c.json(toOwnProfile(await findAnyUserOr404(c.env, c.req.valid("param").id))),
);

/**
 * GET /users/service/update-user-profiles: what changed since `since` (epoch ms), newest
 * first, so a service can keep its copy of profiles (deactivations included) up to date.
 */
profileRoutes.get(
  "/users/service/update-user-profiles",
  requireService,
  valid(
    "query",
    takeSkip().extend({
      since: z.coerce
        .number({ error: "since must be a time in epoch milliseconds" })
        .int("since must be a time in epoch milliseconds")
        .min(0, "since must not be negative")
        .optional(),
    }),
  ),
  async (c) => {
    const { take, skip, since } = c.req.valid("query");
    const where = since === undefined ? undefined : gte(users.updatedAt, since);
    const d = db(c.env);
    const [rows, [{ total }]] = await Promise.all([
      d
        .select()
        .from(users)
        .where(where)
        .orderBy(desc(users.updatedAt), desc(users.id))
        .limit(take)
        .offset(skip)
        .all(),
      d.select({ total: count() }).from(users).where(where).all(),
    ]);
    return c.json({ data: rows.map(toOwnProfile), total });
  },
);

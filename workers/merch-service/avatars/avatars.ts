import { and, asc, eq, inArray, ne, or } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { ADMIN_ROLES } from "../../../shared/roles";
import { AVATAR_SIZES } from "../../../shared/avatar-art";
import { db } from "../../db/client";
import {
  AVATAR_STATUSES,
  avatarAssignments,
  avatars,
  seasons,
  users,
  type AvatarRow,
} from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { caller, requireAdmin, requireAnyToken, requireService } from "../../lib/auth";
import { badRequest, conflict, isUniqueViolation, notFound } from "../../lib/errors";
import { cleanText, valid } from "../../lib/validate";
import { artUrl, avatarArtRoutes, deleteArt } from "./avatar-art";
import {
  accessOf,
  clearLostWearers,
  howToUnlock,
  loadHolder,
  seasonNames,
  type Holder,
} from "./avatar-rules";
import { MSG } from "../messages";

/**
 * Avatars (seed 000): the admin's CRUD and the reads every client makes. Who may use which
 * avatar is decided in avatar-rules.ts; the art lives in avatar-art.ts (mounted first here,
 * so `/avatars/{slug}/image` is never taken for `/avatars/{slug}/{uuid}`).
 *
 * Lists are small (a catalogue of avatars, not of users) and answered whole, with
 * `Cache-Control: max-age=60` (seed 000: "avatar cache 60 s"); the per-caller ones are
 * `private`.
 */
export const avatarRoutes = new Hono<AppEnv>();
avatarRoutes.route("/", avatarArtRoutes);

const PUBLIC_CACHE = "public, max-age=60";
const PRIVATE_CACHE = "private, max-age=60";
/** A catalogue bigger than this is a mistake; lists stop there rather than grow without bound. */
const MAX_LIST = 500;

/** The avatar as every answer shows it. */
export function toAvatarDto(row: AvatarRow) {
  return {
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status,
    discordOnly: row.discordOnly,
    seasonId: row.seasonId,
    pointsThreshold: row.pointsThreshold,
    hasArt: !!row.imageKey,
    imageUrl: artUrl(row),
    thumbnails: Object.fromEntries(AVATAR_SIZES.map((s) => [s, artUrl(row, s)])) as Record<
      (typeof AVATAR_SIZES)[number],
      string
    >,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
export type AvatarDto = ReturnType<typeof toAvatarDto>;

/** The avatar with what the caller may do with it (`/all-avatars`, `/avatars`, `/avatars/{slug}`). */
export type AvatarWithAccess = ReturnType<typeof withAccess>;
function withAccess(row: AvatarRow, holder: Holder | null, names: Map<number, string>) {
  const { canUse, unlock } = accessOf(
    row,
    holder,
    row.seasonId ? (names.get(row.seasonId) ?? null) : null,
  );
  return {
    ...toAvatarDto(row),
    locked: !canUse,
    unlock,
    howToUnlock: howToUnlock(unlock),
    assignment: holder?.assigned.get(row.slug)
      ? { id: holder.assigned.get(row.slug)!.id, type: holder.assigned.get(row.slug)!.type }
      : null,
    worn: holder?.user.avatarId === row.slug,
  };
}

// ---- input ----------------------------------------------------------------------------

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/;
const slug = z
  .string({ error: "slug must be a string" })
  .regex(
    SLUG_RE,
    "slug must be 1 to 60 characters of a-z, 0-9 and '-', not starting or ending with '-'",
  );
export const slugParam = z.object({ slug });
const name = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name must not be empty")
  .max(60, "name must be at most 60 characters")
  .refine((s) => cleanText(s), "name must not contain control characters or broken unicode");
const description = z
  .string({ error: "description must be a string or null" })
  .trim()
  .max(300, "description must be at most 300 characters")
  .refine(
    (s) => cleanText(s, true),
    "description must not contain control characters or broken unicode",
  )
  .transform((s) => s || null)
  .nullable();
const status = z.enum(AVATAR_STATUSES, {
  error: `status must be one of ${AVATAR_STATUSES.join(", ")}`,
});
const seasonId = z
  .number({ error: "seasonId must be a number or null" })
  .int("seasonId must be a whole number")
  .positive("seasonId must be positive")
  .nullable();
const pointsThreshold = z
  .number({ error: "pointsThreshold must be a number or null" })
  .int("pointsThreshold must be a whole number")
  .min(0, "pointsThreshold must not be negative")
  .max(1_000_000_000, "pointsThreshold must be at most 1000000000")
  .nullable();

const createBody = z.strictObject({
  slug,
  name,
  description: description.optional(),
  status: status.default("PUBLIC"),
  discordOnly: z.boolean({ error: "discordOnly must be a boolean" }).default(false),
  seasonId: seasonId.optional(),
  pointsThreshold: pointsThreshold.optional(),
});
const patchBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    status: status.optional(),
    discordOnly: z.boolean({ error: "discordOnly must be a boolean" }).optional(),
    seasonId: seasonId.optional(),
    pointsThreshold: pointsThreshold.optional(),
  })
  .refine((o) => Object.keys(o).length > 0, "Provide at least one field to update.");

/**
 * SEASON_AWARD needs its season (which must exist) and threshold; other statuses carry
 * neither. Checked on the row as it will be after the write, so a PATCH cannot leave it
 * half-made. Answers the season fields to store.
 */
async function seasonFields(
  env: Pick<Env, "DB">,
  next: Pick<AvatarRow, "status" | "seasonId" | "pointsThreshold">,
  sent: { seasonId?: number | null; pointsThreshold?: number | null },
) {
  if (next.status !== "SEASON_AWARD") {
    if ((sent.seasonId ?? null) !== null || (sent.pointsThreshold ?? null) !== null)
      throw badRequest(MSG.awardFieldsOnlyForAward);
    return { seasonId: null, pointsThreshold: null };
  }
  if (next.seasonId === null || next.pointsThreshold === null)
    throw badRequest(MSG.awardFieldsMissing);
  const season = await db(env)
    .select({ id: seasons.id })
    .from(seasons)
    .where(eq(seasons.id, next.seasonId))
    .get();
  if (!season) throw notFound(MSG.seasonIdNotFound(next.seasonId));
  return { seasonId: next.seasonId, pointsThreshold: next.pointsThreshold };
}

export async function findAvatarOr404(env: Pick<Env, "DB">, s: string) {
  const row = await db(env).select().from(avatars).where(eq(avatars.slug, s)).get();
  if (!row) throw notFound(MSG.avatarNotFound);
  return row;
}

const isAdminCaller = (c: Context<AppEnv>) =>
  !!c.get("caller")?.roles.some((r) => ADMIN_ROLES.includes(r));

/** The caller's account and what unlocks it holds, or null (no token, guest, ghost). */
async function holderOf(c: Context<AppEnv>): Promise<Holder | null> {
  const who = c.get("caller");
  return who?.user ? loadHolder(c.env, who.user) : null;
}

/**
 * Deletes an avatar (also `DELETE /admin/avatars/{slug}`): in one D1 batch its assignments,
 * its wearers' `avatarId` and the row; then the art in R2.
 */
export async function deleteAvatar(env: Env, s: string) {
  const row = await findAvatarOr404(env, s);
  const d = db(env);
  await d.batch([
    d.delete(avatarAssignments).where(eq(avatarAssignments.avatarSlug, s)),
    clearLostWearers(env, s, null),
    d.delete(avatars).where(eq(avatars.slug, s)),
  ]);
  await deleteArt(env, row.imageKey);
  return { slug: s, deleted: true };
}

// ---- routes ---------------------------------------------------------------------------

/** POST /avatars (admin): JSON; the art is a separate `PUT /avatars/{slug}/image`. */
avatarRoutes.post("/avatars", requireAdmin, valid("json", createBody), async (c) => {
  const body = c.req.valid("json");
  const season = await seasonFields(
    c.env,
    {
      status: body.status,
      seasonId: body.seasonId ?? null,
      pointsThreshold: body.pointsThreshold ?? null,
    },
    body,
  );
  try {
    const row = await db(c.env)
      .insert(avatars)
      .values({
        slug: body.slug,
        name: body.name,
        description: body.description ?? null,
        status: body.status,
        discordOnly: body.discordOnly,
        ...season,
      })
      .returning()
      .get();
    return c.json(toAvatarDto(row), 201);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(MSG.avatarSlugTaken(body.slug));
    throw err;
  }
});

/** GET /avatars: the avatars the caller may use (no account: the public ones). */
avatarRoutes.get("/avatars", async (c) => {
  const holder = await holderOf(c);
  const assigned = [...(holder?.assigned.keys() ?? [])].slice(0, 90);
  const rows = await db(c.env)
    .select()
    .from(avatars)
    .where(
      or(
        inArray(avatars.status, ["PUBLIC", "SUBSCRIBER_ONLY"]),
        assigned.length ? inArray(avatars.slug, assigned) : undefined,
      ),
    )
    .orderBy(asc(avatars.name), asc(avatars.slug))
    .limit(MAX_LIST)
    .all();
  const names = new Map<number, string>();
  const usable = rows.map((r) => withAccess(r, holder, names)).filter((a) => !a.locked);
  return c.json(usable, 200, { "Cache-Control": PRIVATE_CACHE });
});

/** GET /avatars/subscriber: the SUBSCRIBER_ONLY catalogue (what subscribing unlocks). */
avatarRoutes.get("/avatars/subscriber", async (c) => {
  const rows = await db(c.env)
    .select()
    .from(avatars)
    .where(eq(avatars.status, "SUBSCRIBER_ONLY"))
    .orderBy(asc(avatars.name), asc(avatars.slug))
    .limit(MAX_LIST)
    .all();
  return c.json(rows.map(toAvatarDto), 200, { "Cache-Control": PUBLIC_CACHE });
});

/**
 * GET /all-avatars: every avatar but PRIVATE ones (a PRIVATE one the caller holds is
 * included), each with `locked` and how to unlock it.
 */
avatarRoutes.get("/all-avatars", async (c) => {
  const holder = await holderOf(c);
  const assigned = [...(holder?.assigned.keys() ?? [])].slice(0, 90);
  const rows = await db(c.env)
    .select()
    .from(avatars)
    .where(
      or(
        ne(avatars.status, "PRIVATE"),
        assigned.length ? inArray(avatars.slug, assigned) : undefined,
      ),
    )
    .orderBy(asc(avatars.name), asc(avatars.slug))
    .limit(MAX_LIST)
    .all();
  const names = await seasonNames(c.env, rows);
  return c.json(
    rows.map((r) => withAccess(r, holder, names)),
    200,
    { "Cache-Control": PRIVATE_CACHE },
  );
});

/** GET /service/avatar/{avatarSlug} (service key or admin): the avatar whatever its status. */
avatarRoutes.get(
  "/service/avatar/:avatarSlug",
  requireService,
  valid("param", z.object({ avatarSlug: slug })),
  async (c) => c.json(toAvatarDto(await findAvatarOr404(c.env, c.req.valid("param").avatarSlug))),
);

/**
 * GET /avatars/{slug}: one avatar with the caller's access. A PRIVATE avatar is "not found"
 * to anyone but an admin and its holders (a 403 would confirm it exists).
 */
avatarRoutes.get("/avatars/:slug", valid("param", slugParam), async (c) => {
  const row = await findAvatarOr404(c.env, c.req.valid("param").slug);
  const holder = await holderOf(c);
  if (row.status === "PRIVATE" && !isAdminCaller(c) && !holder?.assigned.has(row.slug))
    throw notFound(MSG.avatarNotFound);
  return c.json(withAccess(row, holder, await seasonNames(c.env, [row])), 200, {
    "Cache-Control": PRIVATE_CACHE,
  });
});

/**
 * GET /avatars/{slug}/{uuid}: whether user {uuid} may use avatar {slug} and whether they
 * wear it (any token; a room client asks this about the people it shows). Only the user
 * themselves and admins learn about PRIVATE avatars; others get 404.
 */
avatarRoutes.get(
  "/avatars/:slug/:uuid",
  requireAnyToken,
  valid("param", slugParam.extend({ uuid: z.uuid({ error: "uuid must be a UUID" }) })),
  async (c) => {
    const { slug: s, uuid } = c.req.valid("param");
    const who = caller(c, ["user", "bot", "guest", "ghost"]);
    const row = await findAvatarOr404(c.env, s);
    const target = await db(c.env)
      .select()
      .from(users)
      .where(and(eq(users.uuid, uuid), eq(users.deactivated, false)))
      .get();
    if (!target) throw notFound(MSG.userNotFound);
    const holder = await loadHolder(c.env, target);
    if (row.status === "PRIVATE" && who.uuid !== uuid && !isAdminCaller(c))
      throw notFound(MSG.avatarNotFound);
    const names = await seasonNames(c.env, [row]);
    const a = withAccess(row, holder, names);
    return c.json({
      slug: row.slug,
      userUuid: uuid,
      canUse: !a.locked,
      worn: a.worn,
      unlock: a.unlock,
      howToUnlock: a.howToUnlock,
      avatar: toAvatarDto(row),
    });
  },
);

/**
 * PATCH /avatars/{slug} (admin). When the change takes the avatar away from people who wear
 * it (PUBLIC to PRIVATE, discordOnly on), their `avatarId` is cleared in the same batch.
 */
avatarRoutes.patch(
  "/avatars/:slug",
  requireAdmin,
  valid("param", slugParam),
  valid("json", patchBody),
  async (c) => {
    const s = c.req.valid("param").slug;
    const body = c.req.valid("json");
    const row = await findAvatarOr404(c.env, s);
    const next = { ...row, ...body } as AvatarRow;
    // Leaving SEASON_AWARD drops its season fields unless the client sent them (then it is a 400).
    const season = await seasonFields(
      c.env,
      {
        status: next.status,
        seasonId: next.status === "SEASON_AWARD" ? next.seasonId : null,
        pointsThreshold: next.status === "SEASON_AWARD" ? next.pointsThreshold : null,
      },
      body,
    );
    const merged: AvatarRow = { ...next, ...season, updatedAt: Date.now() };
    const d = db(c.env);
    const [updated] = await d.batch([
      d
        .update(avatars)
        .set({
          name: merged.name,
          description: merged.description,
          status: merged.status,
          discordOnly: merged.discordOnly,
          ...season,
          updatedAt: merged.updatedAt,
        })
        .where(eq(avatars.slug, s))
        .returning(),
      clearLostWearers(c.env, s, merged),
    ]);
    if (!updated[0]) throw notFound(MSG.avatarNotFound);
    return c.json(toAvatarDto(updated[0]));
  },
);

/** DELETE /avatars/{slug} (admin). */
avatarRoutes.delete("/avatars/:slug", requireAdmin, valid("param", slugParam), async (c) =>
  c.json(await deleteAvatar(c.env, c.req.valid("param").slug)),
);

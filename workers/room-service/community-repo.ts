import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { communities, communityMembers, type CommunityRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import type { Caller } from "../lib/auth";
import { ApiError, conflict, forbidden, isUniqueViolation } from "../lib/errors";
import { cleanText } from "../lib/validate";
import { isAdmin, randomTail, slugFrom } from "./room-repo";
import { MSG } from "./messages";

/** Community and event lookups, slugs, DTOs and field shapes, shared by their route files. */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Community and event slugs: lowercase [a-z0-9-], 3..60. As with rooms, all-digit and
 * uuid-shaped slugs are refused so `{id}` in a path means exactly one row.
 */
export const slug60 = z
  .string({ error: "slug must be a string" })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9-]{3,60}$/, "slug must be 3 to 60 characters of a-z, 0-9 and -")
  .refine((s) => !/^\d+$/.test(s), "slug must not be only digits")
  .refine((s) => !UUID_RE.test(s), "slug must not look like a UUID");

/** A slug made from a name; a random tail keeps it valid when the name gives too little. */
export const slugOf = (name: string) => slugFrom(name, 54, "x-");

export const line = (name: string, min: number, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(min, `${name} must be at least ${min} characters`)
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => cleanText(s), `${name} must not contain control characters`);
export const longText = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => cleanText(s, true), `${name} must not contain control characters`);
export const httpUrl = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .max(2048, `${name} is too long`)
    .refine((s) => /^https?:\/\/\S+$/i.test(s), `${name} must be an http(s) URL`);

/** `{id}` in a path: numeric id, uuid or slug. */
export const idParam = z.object({
  id: z.string().trim().min(1, "id is required").max(64, "id is too long"),
});

/** The where-clause for an id, uuid or slug on a table with those three columns. */
export function keyWhere<T extends { id: unknown; uuid: unknown; slug: unknown }>(
  t: T,
  idOrSlug: string,
) {
  const key = idOrSlug.trim().toLowerCase();
  const tt = t as unknown as typeof communities;
  return /^\d+$/.test(key)
    ? eq(tt.id, Number(key))
    : UUID_RE.test(key)
      ? eq(tt.uuid, key)
      : eq(tt.slug, key);
}

export async function communityOr404(env: Env, idOrSlug: string): Promise<CommunityRow> {
  const row = await db(env).select().from(communities).where(keyWhere(communities, idOrSlug)).get();
  if (!row) throw new ApiError(404, MSG.communityNotFound);
  return row;
}

export function toCommunityDto(r: CommunityRow) {
  return {
    id: r.id,
    uuid: r.uuid,
    slug: r.slug,
    name: r.name,
    description: r.description,
    imageUrl: r.imageUrl,
    ownerUuid: r.ownerUuid,
    isPublic: r.isPublic,
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}

/**
 * A private community is visible only to its members, its admins and platform admins;
 * to anyone else it does not exist (404, not 403, so its slug does not leak).
 */
export async function visibleOr404(c: Context<AppEnv>, id: string): Promise<CommunityRow> {
  const cm = await communityOr404(c.env, id);
  if (cm.isPublic) return cm;
  const who = c.get("caller");
  if (who && (isAdmin(who) || cm.ownerUuid === who.uuid)) return cm;
  if (who) {
    const m = await db(c.env)
      .select({ u: communityMembers.userUuid })
      .from(communityMembers)
      .where(and(eq(communityMembers.communityId, cm.id), eq(communityMembers.userUuid, who.uuid)))
      .get();
    if (m) return cm;
  }
  throw new ApiError(404, MSG.communityNotFound);
}

/** Whether the caller manages the community: its owner, one of its admins, or a platform admin. */
export async function isCommunityAdmin(env: Env, c: CommunityRow, who: Caller): Promise<boolean> {
  if (c.ownerUuid === who.uuid || isAdmin(who)) return true;
  const m = await db(env)
    .select({ role: communityMembers.role })
    .from(communityMembers)
    .where(and(eq(communityMembers.communityId, c.id), eq(communityMembers.userUuid, who.uuid)))
    .get();
  return m?.role === "admin";
}

export async function requireCommunityAdmin(env: Env, c: CommunityRow, who: Caller) {
  if (!(await isCommunityAdmin(env, c, who))) throw forbidden(MSG.communityAdminsOnly);
}

/** A unique-index failure on write is the caller's slug clash: 409, never a 500. */
export const slugClash = (message: string) => (err: unknown) => {
  throw isUniqueViolation(err) ? conflict(message) : err;
};

/** The writable community fields (create and update). */
export const communityShape = {
  name: line("name", 1, 100),
  slug: slug60.optional(),
  description: longText("description", 2000).nullable().optional(),
  imageUrl: httpUrl("imageUrl").nullable().optional(),
  isPublic: z.boolean({ error: "isPublic must be a boolean" }).optional(),
};

/**
 * Inserts with a slug: a given slug that is taken is the caller's 409; a slug made from the
 * name gets a random tail and one more try, so two communities or events may share a name.
 */
export async function withSlug<T>(
  given: string | undefined,
  name: string,
  taken: string,
  insert: (slug: string) => Promise<T>,
): Promise<T> {
  if (given) return insert(given).catch(slugClash(taken));
  const first = slugOf(name);
  return insert(first).catch((err) => {
    if (!isUniqueViolation(err)) throw err;
    return insert(`${first.slice(0, 54)}-${randomTail()}`).catch(slugClash(taken));
  });
}

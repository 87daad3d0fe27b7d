import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { db } from "../db/client";
import { users, type UserRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { fields } from "../lib/validate";
import { toOtherProfile, type OtherProfile } from "../user-service/accounts";
import { notBlockedWith } from "./blocks";
import { SOCIAL_MSG } from "./messages";

/**
 * What the social routes share: the `{id}` path, the paged shape of people lists, and
 * looking people up. A person in a list is the user-service's public profile
 * (toOtherProfile), never restated here.
 */

/** Seed 001, constants: "Fans and following page size: 12". */
export const FANS_PAGE_SIZE = 12;
/** The most one page may ask for, and how deep a list may be read (each skipped row costs a step). */
export const MAX_TAKE = 50;
export const MAX_SKIP = 100_000;
export const peoplePage = takeSkip(MAX_TAKE, FANS_PAGE_SIZE, MAX_SKIP);
export type Page = z.output<typeof peoplePage>;

/** Ids in social paths are user uuids (invitation uuids for invitations). */
export const uuidParam = z.object({ id: fields.uuid });

/** The paged answer of every social list. */
export const paged = <T>(data: T[], total: number, { skip, take }: Page) => ({
  data,
  total,
  skip,
  take,
});

export const iso = (ms: number) => new Date(ms).toISOString();

/** The active account `uuid`, or 404 with the user-service's "not found" text. */
export async function activeUserOr404(env: Env, uuid: string): Promise<UserRow> {
  const u = await db(env)
    .select()
    .from(users)
    .where(and(eq(users.uuid, uuid), eq(users.deactivated, false)))
    .get();
  if (!u) throw new ApiError(404, SOCIAL_MSG.userNotFound);
  return u;
}

/** D1 binds at most 100 parameters per statement. */
const IN_CHUNK = 90;

/** Public profiles of the active accounts among `uuids` (a missing or deactivated one is absent). */
export async function profilesOf(env: Env, uuids: string[]): Promise<Map<string, OtherProfile>> {
  const wanted = [...new Set(uuids)];
  const d = db(env);
  const found: UserRow[] = [];
  for (let i = 0; i < wanted.length; i += IN_CHUNK) {
    const ids = wanted.slice(i, i + IN_CHUNK);
    found.push(
      ...(await d
        .select()
        .from(users)
        .where(and(inArray(users.uuid, ids), eq(users.deactivated, false)))
        .all()),
    );
  }
  return new Map(found.map((u) => [u.uuid, toOtherProfile(u)]));
}

/**
 * The filter every people list shown to `viewer` applies to the listed person's uuid column:
 * an active account that has not blocked the viewer and that the viewer has not blocked
 * (blocked users are hidden from each other). Pair it with a join on users.
 */
export const visibleTo = (viewer: string | undefined, person: SQLiteColumn | SQL): SQL =>
  and(eq(users.deactivated, false), viewer ? notBlockedWith(viewer, person) : undefined)!;

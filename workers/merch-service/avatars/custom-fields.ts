import { and, asc, count, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { customFields } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { caller, requireUser } from "../../lib/auth";
import { badRequest, notFound } from "../../lib/errors";
import { cleanText, parseOr400, valid } from "../../lib/validate";
import { MSG } from "../messages";

/**
 * Custom fields: small key/value strings a user keeps on their own account (a client's
 * flags, a handle on another service).
 *
 * - `POST /custom-fields` `{ key, value }` sets one field (insert or replace);
 * - `DELETE /custom-fields` with `key` in the query (`?key=`) or the JSON body removes one;
 * - both answer every field of the caller: `{ fields: { [key]: value } }`, keys sorted.
 *
 * A key is 1..64 of `A-Z a-z 0-9 _ . : -`; a value is at most 1000 characters of clean
 * text (line breaks allowed); a user keeps at most 50 fields.
 */
export const customFieldRoutes = new Hono<AppEnv>();

export const MAX_FIELDS = 50;
const key = z
  .string({ error: "key must be a string" })
  .min(1, "key must not be empty")
  .max(64, "key must be at most 64 characters")
  .regex(/^[A-Za-z0-9_.:-]+$/, "key may only contain letters, digits, '_', '.', ':' and '-'");
const value = z
  .string({ error: "value must be a string" })
  .max(1000, "value must be at most 1000 characters")
  .refine((s) => cleanText(s, true), "value must not contain control characters or broken unicode");

async function allFields(env: Pick<Env, "DB">, userUuid: string) {
  const rows = await db(env)
    .select({ key: customFields.key, value: customFields.value })
    .from(customFields)
    .where(eq(customFields.userUuid, userUuid))
    .orderBy(asc(customFields.key))
    .all();
  return {
    fields: Object.fromEntries(rows.map((r) => [r.key, r.value])) as Record<string, string>,
  };
}

customFieldRoutes.post(
  "/custom-fields",
  requireUser,
  valid("json", z.strictObject({ key, value })),
  async (c) => {
    const who = caller(c);
    const { key: k, value: v } = c.req.valid("json");
    const d = db(c.env);
    const where = and(eq(customFields.userUuid, who.uuid), eq(customFields.key, k));
    const exists = await d.select({ key: customFields.key }).from(customFields).where(where).get();
    if (!exists) {
      const [{ n }] = await d
        .select({ n: count() })
        .from(customFields)
        .where(eq(customFields.userUuid, who.uuid))
        .all();
      if (n >= MAX_FIELDS) throw badRequest(MSG.customFieldLimit(MAX_FIELDS));
    }
    const now = Date.now();
    await d
      .insert(customFields)
      .values({ userUuid: who.uuid, key: k, value: v })
      .onConflictDoUpdate({
        target: [customFields.userUuid, customFields.key],
        set: { value: v, updatedAt: now },
      })
      .run();
    return c.json(await allFields(c.env, who.uuid), exists ? 200 : 201);
  },
);

customFieldRoutes.delete("/custom-fields", requireUser, async (c) => {
  const who = caller(c);
  let body: unknown = {};
  if (/json/i.test(c.req.header("Content-Type") ?? "")) body = await c.req.json().catch(() => ({}));
  const fromQuery = c.req.query("key");
  const { key: k } = parseOr400(
    z.object({ key }, { error: "key is required (query or JSON body)" }),
    fromQuery !== undefined ? { key: fromQuery } : (body ?? {}),
  );
  const gone = await db(c.env)
    .delete(customFields)
    .where(and(eq(customFields.userUuid, who.uuid), eq(customFields.key, k)))
    .returning({ key: customFields.key })
    .get();
  if (!gone) throw notFound(MSG.customFieldNotFound(k));
  return c.json(await allFields(c.env, who.uuid));
});

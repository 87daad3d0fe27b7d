import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { phoneWhitelist, type PhoneWhitelistRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin } from "../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { ApiError, isUniqueViolation } from "../lib/errors";
import { MAX_PHONE_INPUT, parsePhone } from "../lib/phones";
import { cleanText, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { MSG } from "./messages";

/**
 * The phone whitelist (seed 000 "Admin-panel calls: manage the phone whitelist"): numbers
 * that sign in with a fixed code and get no text, for app store review and demo devices.
 * Two families of calls manage the one table: `/mobile-auth/whitelist` (by number) and
 * `/admin/phoneNumbers` (the admin panel's list, by id). Admins only.
 *
 * A whitelisted number skips the line-type check (review numbers are often virtual) but not
 * the parse: it is a real plan's number in E.164, so it can never collide with another
 * spelling of itself.
 */
export const phoneWhitelistRoutes = new Hono<AppEnv>();

const entryBody = z.strictObject({
  phone: z
    .string({ error: "phone must be a string" })
    .min(1, "phone should not be empty")
    .max(MAX_PHONE_INPUT, `phone must be at most ${MAX_PHONE_INPUT} characters`),
  code: z
    .string({ error: "code must be a string" })
    .regex(/^\d{4,8}$/, "code must be 4 to 8 digits"),
  note: z
    .string({ error: "note must be a string" })
    .max(200, "note must be at most 200 characters")
    .trim()
    .refine((s) => cleanText(s), "note must be one line of plain text")
    .optional(),
});

const toDto = (r: PhoneWhitelistRow) => ({
  id: r.id,
  phoneNumber: r.phone,
  code: r.code,
  note: r.note,
  createdBy: r.createdBy,
  createdAt: new Date(r.createdAt).toISOString(),
});

async function addEntry(c: { env: Env }, who: string, body: z.output<typeof entryBody>) {
  const parsed = await parsePhone(body.phone);
  if (!parsed?.valid) throw new ApiError(400, MSG.phoneInvalid);
  try {
    return await db(c.env)
      .insert(phoneWhitelist)
      .values({ phone: parsed.phone, code: body.code, note: body.note || null, createdBy: who })
      .returning()
      .get();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(409, MSG.whitelistTaken);
    throw err;
  }
}

for (const path of ["/mobile-auth/whitelist", "/admin/phoneNumbers"]) {
  phoneWhitelistRoutes.post(path, requireAdmin, valid("json", entryBody), async (c) => {
    const who = caller(c);
    const row = await addEntry(c, who.uuid, c.req.valid("json"));
    await audit(c, "phone.whitelisted", who.uuid, { phone: row.phone, id: row.id });
    return c.json(toDto(row), 201);
  });
}

/** Removes an entry; 404 when there is none. Its number gets texted codes again. */
async function removeEntry(
  c: Parameters<typeof audit>[0] & { env: Env },
  who: string,
  where: ReturnType<typeof eq>,
) {
  const row = await db(c.env).delete(phoneWhitelist).where(where).returning().get();
  if (!row) throw new ApiError(404, MSG.whitelistNotFound);
  await audit(c, "phone.unwhitelisted", who, { phone: row.phone, id: row.id });
  return toDto(row);
}

phoneWhitelistRoutes.delete(
  "/mobile-auth/whitelist/:phone",
  requireAdmin,
  valid("param", z.object({ phone: entryBody.shape.phone })),
  async (c) => {
    const parsed = await parsePhone(c.req.valid("param").phone);
    if (!parsed?.valid) throw new ApiError(404, MSG.whitelistNotFound);
    return c.json(await removeEntry(c, caller(c).uuid, eq(phoneWhitelist.phone, parsed.phone)));
  },
);

const COLUMNS: Columns = {
  id: phoneWhitelist.id,
  phoneNumber: phoneWhitelist.phone,
  note: phoneWhitelist.note,
  createdBy: phoneWhitelist.createdBy,
  createdAt: phoneWhitelist.createdAt,
};

/** GET /admin/phoneNumbers: the whitelist, in the admin lists' crud query language. */
phoneWhitelistRoutes.get(
  "/admin/phoneNumbers",
  requireAdmin,
  valid("query", crudQuerySchema),
  async (c) => c.json(await crudList(c.env, phoneWhitelist, COLUMNS, c.req.valid("query"), toDto)),
);

const idParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int("id must be a whole number")
    .min(1, "id must be a whole number")
    .max(Number.MAX_SAFE_INTEGER, "id is too large"),
});

phoneWhitelistRoutes.get(
  "/admin/phoneNumbers/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    const row = await db(c.env)
      .select()
      .from(phoneWhitelist)
      .where(eq(phoneWhitelist.id, c.req.valid("param").id))
      .get();
    if (!row) throw new ApiError(404, MSG.whitelistNotFound);
    return c.json(toDto(row));
  },
);

phoneWhitelistRoutes.delete(
  "/admin/phoneNumbers/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) =>
    c.json(await removeEntry(c, caller(c).uuid, eq(phoneWhitelist.id, c.req.valid("param").id))),
);

import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { USER_CAPABILITIES, type UserCapability } from "../../shared/roles";
import { batchOf, db } from "../db/client";
import { users, vouchers, type UserRow, type VoucherRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { voucherCode } from "../lib/crypto";
import { crudList, crudQuerySchema } from "../lib/crud-query";
import { ApiError, isUniqueViolation } from "../lib/errors";
import { fields, requireFields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { addCapability, createUser, issueSession } from "./accounts";
import { MSG } from "./messages";
import { publicOrigin } from "../lib/links";
import { clientNet } from "../lib/abuse-limits";
import { takeAttempt } from "../lib/rate-limit";

/**
 * Vouchers: admins mint and revoke them; a user redeems one (for a capability), or signs
 * up with one. PENDING → REDEEMED or REVOKED, each change a single conditional UPDATE, so a
 * voucher is redeemed once however many requests race for it.
 */
export const voucherRoutes = new Hono<AppEnv>();

export function toVoucher(v: VoucherRow) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: v.id,
    code: v.code,
    status: v.status,
    capability: v.capability,
    note: v.note,
    createdBy: v.createdBy,
    redeemedBy: v.redeemedBy,
    redeemedAt: iso(v.redeemedAt),
    createdAt: iso(v.createdAt)!,
    updatedAt: iso(v.updatedAt)!,
  };
}

/**
 * A typed code, forgiving about case, spaces and dashes: "abcd efgh jkmn" is
 * "ABCD-EFGH-JKMN". Anything else is kept as typed and simply matches no voucher.
 */
const codeField = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} should not be empty`)
    .max(64, `${name} must be at most 64 characters`)
    .transform((s) => {
      const bare = s.toUpperCase().replace(/[\s-]/g, "");
      return /^[A-Z0-9]{12}$/.test(bare)
        ? `${bare.slice(0, 4)}-${bare.slice(4, 8)}-${bare.slice(8)}`
        : s;
    });

/** PENDING → REDEEMED by `by`, in one statement; undefined when the code is not redeemable. */
function redeem(env: Env, code: string, by: string) {
  const now = Date.now();
  return db(env)
    .update(vouchers)
    .set({ status: "REDEEMED", redeemedBy: by, redeemedAt: now, updatedAt: now })
    .where(and(eq(vouchers.code, code), eq(vouchers.status, "PENDING")))
    .returning()
    .get();
}

/** Adds a capability the account may already have (then it is unchanged); answers the row. */
async function grantCapability(
  env: Env,
  userId: number,
  capability: UserCapability,
): Promise<UserRow> {
  return (
    (await addCapability(env, userId, capability)) ??
    (await db(env).select().from(users).where(eq(users.id, userId)).get())!
  );
}

const mintBody = z.object({
  count: z
    .number({ error: "count must be a number" })
    .int("count must be an integer")
    .min(1, "count must be at least 1")
    .max(100, "count must be at most 100")
    .default(1),
  capability: z
    .enum(USER_CAPABILITIES, { error: `capability must be one of ${USER_CAPABILITIES.join(", ")}` })
    .optional(),
  note: z
    .string({ error: "note must be a string" })
    .trim()
    .max(500, "note must be at most 500 characters")
    .optional(),
});

/**
 * POST /vouchers (admin): mint `count` codes in one D1 batch (all or none). A code
 * collision (60 bits of randomness: practically never) fails the batch; it is retried
 * with fresh codes.
 */
voucherRoutes.post("/vouchers", requireAdmin, valid("json", mintBody), async (c) => {
  const who = caller(c);
  const { count: n, capability, note } = c.req.valid("json");
  const d = db(c.env);
  for (let attempt = 1; ; attempt++) {
    const inserts = Array.from({ length: n }, () =>
      d
        .insert(vouchers)
        .values({
          code: voucherCode(),
          capability: capability ?? null,
          note: note || null,
          createdBy: who.uuid,
        })
        .returning(),
    );
    try {
      const rows = (await d.batch(batchOf(inserts))).flat();
      await audit(c, "voucher.minted", who.uuid, { count: n, capability: capability ?? null });
      return c.json({ data: rows.map(toVoucher) }, 201);
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
});

const listColumns = {
  id: vouchers.id,
  code: vouchers.code,
  status: vouchers.status,
  capability: vouchers.capability,
  createdAt: vouchers.createdAt,
  redeemedBy: vouchers.redeemedBy,
};

/** GET /vouchers (admin): the crud query language (bad input is a 400). */
voucherRoutes.get("/vouchers", requireAdmin, valid("query", crudQuerySchema), async (c) => {
  return c.json(await crudList(c.env, vouchers, listColumns, c.req.valid("query"), toVoucher));
});

const idParam = z.object({ id: fields.int(1, Number.MAX_SAFE_INTEGER) });

/** DELETE /vouchers/{id} (admin): PENDING → REVOKED. Revoking twice is a no-op; redeemed is 409. */
voucherRoutes.delete("/vouchers/:id", requireAdmin, valid("param", idParam), async (c) => {
  const { id } = c.req.valid("param");
  const d = db(c.env);
  const revoked = await d
    .update(vouchers)
    .set({ status: "REVOKED", updatedAt: Date.now() })
    .where(and(eq(vouchers.id, id), eq(vouchers.status, "PENDING")))
    .returning()
    .get();
  if (revoked) {
    await audit(c, "voucher.revoked", caller(c).uuid, { voucherId: id });
    return c.json(toVoucher(revoked));
  }
  const row = await d.select().from(vouchers).where(eq(vouchers.id, id)).get();
  if (!row) throw new ApiError(404, MSG.voucherNotFound);
  if (row.status === "REDEEMED") throw new ApiError(409, MSG.voucherAlreadyRedeemed);
  return c.json(toVoucher(row));
});

/** PATCH /vouchers/redeem: the signed-in account redeems a code and gets its capability. */
voucherRoutes.patch(
  "/vouchers/redeem",
  requireUser,
  valid("json", z.object({ code: codeField("code") })),
  async (c) => {
    const who = caller(c);
    const voucher = await redeem(c.env, c.req.valid("json").code, who.uuid);
    if (!voucher) throw new ApiError(403, MSG.voucherInvalid);
    const user = voucher.capability
      ? await grantCapability(c.env, who.user.id, voucher.capability)
      : who.user;
    await audit(c, "voucher.redeemed", who.uuid, { voucherId: voucher.id });
    return c.json({ voucher: toVoucher(voucher), capabilities: user.capabilities });
  },
);

// The catalogue has one message for any of the three missing; a present but malformed
// value gets the precise reason instead.
const voucherSignUpBody = requireFields(
  ["email", "password", "voucherCode"],
  MSG.voucherSignUpMissing,
  z.object({
    email: fields.email,
    password: fields.password,
    voucherCode: codeField("voucherCode"),
    nickname: fields.nickname.optional(),
  }),
);

/**
 * POST /users/voucher-sign-up: an account that spends a voucher. The voucher is claimed
 * first, before the address is looked at (one conditional UPDATE, marked with this request's claim id); if the account
 * cannot be made (the e-mail was taken meanwhile) the claim is put back to PENDING, so a
 * failed sign-up never costs a voucher and a voucher never makes two accounts.
 */
voucherRoutes.post("/users/voucher-sign-up", valid("json", voucherSignUpBody), async (c) => {
  const { voucherCode: code, ...account } = c.req.valid("json");
  // Before the voucher is looked at: a flood can neither guess codes nor make accounts.
  await takeAttempt(
    c.env,
    [{ rule: "voucherSignUpPerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
    MSG.tooManySignUps,
  );
  const d = db(c.env);
  // The voucher first: without a good one, a known and an unknown address get the same
  // answer, so this route cannot be used to find out who has an account (issue 13). A taken
  // address is found by createUser, and the claim is put back.
  const claim = `sign-up:${crypto.randomUUID()}`;
  const voucher = await redeem(c.env, code, claim);
  if (!voucher) throw new ApiError(403, MSG.voucherInvalid);
  let user: UserRow;
  try {
    user = await createUser(c.env, { ...account, origin: publicOrigin(c) });
  } catch (err) {
    await d
      .update(vouchers)
      .set({ status: "PENDING", redeemedBy: null, redeemedAt: null, updatedAt: Date.now() })
      .where(and(eq(vouchers.id, voucher.id), eq(vouchers.redeemedBy, claim)))
      .run();
    throw err;
  }
  await d
    .update(vouchers)
    .set({ redeemedBy: user.uuid, updatedAt: Date.now() })
    .where(and(eq(vouchers.id, voucher.id), eq(vouchers.redeemedBy, claim)))
    .run();
  if (voucher.capability) user = await grantCapability(c.env, user.id, voucher.capability);
  await audit(c, "user.sign-up", user.uuid, { via: "voucher", voucherId: voucher.id });
  return c.json(await issueSession(c.env, user), 201);
});

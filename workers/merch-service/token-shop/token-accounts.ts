import { Hono } from "hono";
import { z } from "zod";
import { ACCOUNT_STATUSES } from "../../../durable/token-account";
import type { AppEnv } from "../../env";
import { caller, requireAdmin, requireUser } from "../../lib/auth";
import { isDevEnvironment } from "../../lib/environments";
import { forbidden, notFound } from "../../lib/errors";
import { limitOffset } from "../../lib/paging";
import { cleanText, valid } from "../../lib/validate";
import { accountFor, accountObject, accountOf, ensureAccount } from "./account-repo";
import { toAccountDto } from "./shop-dto";
import { MSG } from "../messages";

/**
 * Token accounts (seed 000): one per user; the D1 row says whose it is, the TokenAccount
 * object holds the ledger and so the balance. Calls:
 * - POST /api/v1/token-accounts: the caller's account, made on first call (201) or found (200).
 * - GET /api/v1/token-accounts/self; GET /api/v1/token-accounts/{accountId} (owner or admin).
 * - GET /api/v1/token-accounts/{accountId}/transactions?limit&offset: the ledger, newest first.
 * - PATCH /api/v1/token-accounts/{accountId}/status {status} (admin): disable or enable.
 * - POST /api/v1/token-accounts/{accountId}/grant {amount, idempotencyKey} (admin, and only
 *   when ENVIRONMENT is development or test): credits tokens without a payment, for local
 *   demos and the browser tests. Production answers 403.
 */
export const tokenAccountRoutes = new Hono<AppEnv>();

const P = "/api/v1/token-accounts";
const accountParam = z.object({ accountId: z.uuid({ error: "accountId must be a UUID" }) });
const statusBody = z.object({
  status: z.enum(ACCOUNT_STATUSES, {
    error: `status must be one of ${ACCOUNT_STATUSES.join(", ")}`,
  }),
});
const grantBody = z.object({
  amount: z
    .number({ error: "amount must be a number" })
    .int("amount must be an integer")
    .min(1, "amount must be at least 1")
    .max(1_000_000, "amount must be at most 1000000"),
  idempotencyKey: z
    .string({ error: "idempotencyKey must be a string" })
    .min(1, "idempotencyKey must not be empty")
    .max(100, "idempotencyKey must be at most 100 characters")
    .refine((s) => cleanText(s), "idempotencyKey must not contain control characters")
    .optional(),
});

tokenAccountRoutes.post(P, requireUser, async (c) => {
  const { account, created } = await ensureAccount(c.env, caller(c).uuid);
  const view = await accountObject(c.env, account.id).getAccount();
  return c.json(toAccountDto(account, view), created ? 201 : 200);
});

tokenAccountRoutes.get(`${P}/self`, requireUser, async (c) => {
  const account = await accountOf(c.env, caller(c).uuid);
  if (!account) throw notFound(MSG.accountNotFound);
  return c.json(toAccountDto(account, await accountObject(c.env, account.id).getAccount()));
});

tokenAccountRoutes.get(`${P}/:accountId`, requireUser, valid("param", accountParam), async (c) => {
  const account = await accountFor(c.env, caller(c), c.req.valid("param").accountId, true);
  return c.json(toAccountDto(account, await accountObject(c.env, account.id).getAccount()));
});

/** The ledger (credit, hold, commit, voided rows), newest first: `{ data, total, limit, offset }`. */
tokenAccountRoutes.get(
  `${P}/:accountId/transactions`,
  requireUser,
  valid("param", accountParam),
  valid("query", limitOffset(100, 20)),
  async (c) => {
    const account = await accountFor(c.env, caller(c), c.req.valid("param").accountId, true);
    const { limit, offset } = c.req.valid("query");
    const page = await accountObject(c.env, account.id).transactions(limit, offset);
    return c.json({ ...page, limit, offset });
  },
);

/** A disabled account refuses holds, commits, voids and credits, but still answers reads. */
tokenAccountRoutes.patch(
  `${P}/:accountId/status`,
  requireAdmin,
  valid("param", accountParam),
  valid("json", statusBody),
  async (c) => {
    const account = await accountFor(c.env, caller(c), c.req.valid("param").accountId, true);
    const view = await accountObject(c.env, account.id).setStatus(c.req.valid("json").status);
    return c.json(toAccountDto(account, view));
  },
);

tokenAccountRoutes.post(
  `${P}/:accountId/grant`,
  requireAdmin,
  valid("param", accountParam),
  valid("json", grantBody),
  async (c) => {
    // Tokens for nothing only where dev-only features run (never production).
    if (!isDevEnvironment(c.env)) throw forbidden(MSG.grantRefused);
    const who = caller(c);
    const account = await accountFor(c.env, who, c.req.valid("param").accountId, true);
    const { amount, idempotencyKey } = c.req.valid("json");
    const stub = accountObject(c.env, account.id);
    // credit() throws only on a disabled account (a reused key for another amount cannot
    // happen: the key is scoped by amount here), so check first and answer 403 instead; a
    // disable that lands in between is told apart from a real failure by reading again.
    const disabled = async () => (await stub.getAccount()).status !== "active";
    if (await disabled()) throw forbidden(MSG.accountDisabled);
    const result = await stub
      .credit(
        amount,
        `grant:${who.uuid}:${amount}:${idempotencyKey ?? crypto.randomUUID()}`,
        `grant by ${who.uuid}`,
      )
      .catch(async (e) => {
        throw (await disabled()) ? forbidden(MSG.accountDisabled) : e;
      });
    return c.json(
      { ...toAccountDto(account, await stub.getAccount()), duplicate: result.duplicate },
      result.duplicate ? 200 : 201,
    );
  },
);

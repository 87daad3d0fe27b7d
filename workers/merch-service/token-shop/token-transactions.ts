import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import type { RefusalCode, TransactionRefused } from "../../../durable/token-account";
import type { AppEnv } from "../../env";
import { caller, requireService } from "../../lib/auth";
import { ApiError } from "../../lib/errors";
import { cleanText, valid } from "../../lib/validate";
import { accountFor, accountById, accountObject } from "./account-repo";
import { MSG } from "../messages";

/**
 * Ending a hold by hand: POST /api/v1/token-transactions/commit and /void with
 * `{ accountId, holdId, idempotencyKey }`. The purchase route does both itself; these are for
 * a service that holds tokens for its own sale, and for an owner who wants to release a
 * hold a broken client left open. A purchase's hold is never ended here (409): it ends with
 * its purchase (purchase-end.ts), so releasing it cannot leave a delivered gift unpaid.
 *
 * Who may call: another service with `X-Service-Key` (any account), or a signed-in user on
 * their own account (admins on any). The same key again answers the first result; a hold
 * ends once, so commit after void (or void after commit) is 409.
 */
export const tokenTransactionRoutes = new Hono<AppEnv>();

const key = z
  .string({ error: "idempotencyKey must be a string" })
  .min(1, "idempotencyKey must not be empty")
  .max(100, "idempotencyKey must be at most 100 characters")
  .refine((s) => cleanText(s), "idempotencyKey must not contain control characters");

const endBody = z.object({
  accountId: z.uuid({ error: "accountId must be a UUID" }),
  holdId: z.uuid({ error: "holdId must be a UUID" }),
  idempotencyKey: key,
});

/** How the object's refusals reach a client: a status a client can act on and its message. */
const REFUSAL_STATUS: Record<RefusalCode, number> = {
  insufficient_funds: 422,
  disabled: 403,
  stale: 409,
  hold_not_found: 404,
  hold_voided: 409,
  hold_committed: 409,
  key_conflict: 409,
  purchase_hold: 409,
  // Payment Required: tokens must be bought (they pay the debt first) before any spending.
  in_debt: 402,
};

export function refusalError(r: TransactionRefused): ApiError {
  const message =
    r.code === "disabled"
      ? MSG.accountDisabled
      : r.code === "hold_not_found"
        ? MSG.holdNotFound
        : r.message;
  return new ApiError(REFUSAL_STATUS[r.code], message);
}

/** A service key, or else a signed-in user (owner or admin, checked once the account is read). */
const serviceOrUser = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("X-Service-Key") !== undefined) return requireService(c, next);
  caller(c);
  await next();
});

for (const action of ["commit", "void"] as const) {
  tokenTransactionRoutes.post(
    `/api/v1/token-transactions/${action}`,
    serviceOrUser,
    valid("json", endBody),
    async (c) => {
      const { accountId, holdId, idempotencyKey } = c.req.valid("json");
      const byService = c.req.header("X-Service-Key") !== undefined;
      const account = byService
        ? await accountById(c.env, accountId)
        : await accountFor(c.env, caller(c), accountId, true);
      if (!account) throw new ApiError(404, MSG.accountNotFound);
      const stub = accountObject(c.env, account.id);
      // Keys are scoped by who calls, so one client's key can never answer for another's call.
      const scoped = `${action}:${byService ? "service" : caller(c).uuid}:${idempotencyKey}`;
      const result =
        action === "commit" ? await stub.commit(holdId, scoped) : await stub.void(holdId, scoped);
      if (!result.ok) throw refusalError(result);
      return c.json({ ...result, accountId: account.id }, result.duplicate ? 200 : 201);
    },
  );
}

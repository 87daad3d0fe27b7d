import { gt, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { tokenAccounts, users, type TokenAccountRow } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../../lib/crud-query";
import { valid } from "../../lib/validate";
import { accountObject, accountOf } from "./account-repo";
import { toAccountDto } from "./shop-dto";

/**
 * Token accounts for the admin panel (issue 12: refunds and the debt they leave).
 * - GET /admin/token-debts: accounts that owe tokens after a refund, most owed first, with the
 *   crud query language; `{ data, count, total, page, pageCount }`, rows with the owner's
 *   nickname and e-mail. Read from D1's copy of each account's debt (the object writes it
 *   through its outbox), so it may trail the object by a moment.
 * - GET /admin/token-accounts/user/{userUuid}: that user's account as the object has it
 *   (balance, held, debt), its refund entries (`clawback`, `repay`) and latest transactions;
 *   `account: null` when the user never had one.
 */
export const adminTokenAccountRoutes = new Hono<AppEnv>();

const DEBT_COLUMNS: Columns = {
  id: tokenAccounts.id,
  userUuid: tokenAccounts.userUuid,
  debt: tokenAccounts.debt,
  createdAt: tokenAccounts.createdAt,
  updatedAt: tokenAccounts.updatedAt,
};
const REFUND_TYPES = ["clawback", "repay"] as const;
const RECENT = 20;

const debtDto = (r: TokenAccountRow) => ({
  id: r.id,
  userUuid: r.userUuid,
  debt: r.debt,
  createdAt: new Date(r.createdAt).toISOString(),
  updatedAt: new Date(r.updatedAt).toISOString(),
});

/** Adds each row's owner (nickname, e-mail, numeric id for the admin user page): one D1 read. */
async function withOwners<T extends { userUuid?: string }>(env: Env, rows: T[]) {
  const uuids = rows.map((r) => r.userUuid ?? "");
  const owners = uuids.length
    ? await db(env)
        .select({ uuid: users.uuid, id: users.id, nickname: users.nickname, email: users.email })
        .from(users)
        .where(sql`${users.uuid} in (select value from json_each(${JSON.stringify(uuids)}))`)
        .all()
    : [];
  const byUuid = new Map(owners.map((o) => [o.uuid, o]));
  return rows.map((r) => {
    const o = byUuid.get(r.userUuid ?? "");
    return { ...r, userId: o?.id ?? null, nickname: o?.nickname ?? null, email: o?.email ?? null };
  });
}

adminTokenAccountRoutes.get(
  "/admin/token-debts",
  requireAdmin,
  valid("query", crudQuerySchema),
  async (c) => {
    // Only accounts that owe: the caller's query narrows this further, never widens it.
    const page = await crudList(c.env, tokenAccounts, DEBT_COLUMNS, c.req.valid("query"), debtDto, {
      defaultSort: ["debt", "DESC"],
      scope: gt(tokenAccounts.debt, 0),
    });
    return c.json({ ...page, data: await withOwners(c.env, page.data) });
  },
);

/** A user's account as the object has it, its refund entries and latest transactions. */
async function userTokens(env: Env, userUuid: string) {
  const account = await accountOf(env, userUuid);
  if (!account) return { account: null, refunds: [], refundsTotal: 0, recent: [] };
  const stub = accountObject(env, account.id);
  const [view, refunds, recent] = await Promise.all([
    stub.getAccount(),
    stub.transactions(RECENT, 0, [...REFUND_TYPES]),
    stub.transactions(RECENT, 0),
  ]);
  return {
    account: toAccountDto(account, view),
    refunds: refunds.data,
    refundsTotal: refunds.total,
    recent: recent.data,
  };
}
export type AdminUserTokens = Awaited<ReturnType<typeof userTokens>>;
export type AdminDebtRow = Awaited<
  ReturnType<typeof withOwners<ReturnType<typeof debtDto>>>
>[number];

adminTokenAccountRoutes.get(
  "/admin/token-accounts/user/:userUuid",
  requireAdmin,
  valid("param", z.object({ userUuid: z.uuid({ error: "userUuid must be a UUID" }) })),
  async (c) => c.json(await userTokens(c.env, c.req.valid("param").userUuid.toLowerCase())),
);

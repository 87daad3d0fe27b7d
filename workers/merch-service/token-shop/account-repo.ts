import { eq } from "drizzle-orm";
import { db } from "../../db/client";
import { tokenAccounts, type TokenAccountRow } from "../../db/schema";
import type { Env } from "../../env";
import { ADMIN_ROLES } from "../../../shared/roles";
import type { Caller } from "../../lib/auth";
import { forbidden, notFound } from "../../lib/errors";
import { MSG } from "../messages";

/**
 * Token accounts in D1: which account id (and so which TokenAccount object) belongs to a
 * user. The balance itself is only ever in the object (DESIGN.md, "Money and points").
 */
export async function accountOf(env: Env, userUuid: string): Promise<TokenAccountRow | undefined> {
  return db(env).select().from(tokenAccounts).where(eq(tokenAccounts.userUuid, userUuid)).get();
}

export async function accountById(env: Env, id: string): Promise<TokenAccountRow | undefined> {
  return db(env).select().from(tokenAccounts).where(eq(tokenAccounts.id, id)).get();
}

/**
 * The user's account, made on first use. Concurrent calls for one user agree: the unique
 * user_uuid lets one insert win and every caller reads the winner back.
 * Returns whether this call created it (`POST /api/v1/token-accounts` answers 201 vs 200).
 */
export async function ensureAccount(
  env: Env,
  userUuid: string,
): Promise<{ account: TokenAccountRow; created: boolean }> {
  const id = crypto.randomUUID();
  const inserted = await db(env)
    .insert(tokenAccounts)
    .values({ id, userUuid })
    .onConflictDoNothing({ target: tokenAccounts.userUuid })
    .returning()
    .get();
  if (inserted) return { account: inserted, created: true };
  const account = await accountOf(env, userUuid);
  if (!account) throw new Error(`token account for ${userUuid} vanished`);
  return { account, created: false };
}

/** The object that holds an account's ledger. */
export const accountObject = (env: Env, accountId: string) => env.TokenAccount.getByName(accountId);

/**
 * The account `accountId`, if `who` may act on it: its owner, or an admin when `adminToo`.
 * Unknown: 404 with the spec's text; someone else's: 403.
 */
export async function accountFor(
  env: Env,
  who: Pick<Caller, "uuid" | "roles">,
  accountId: string,
  adminToo: boolean,
): Promise<TokenAccountRow> {
  const account = await accountById(env, accountId);
  if (!account) throw notFound(MSG.accountNotFound);
  if (
    account.userUuid !== who.uuid &&
    !(adminToo && who.roles.some((r) => ADMIN_ROLES.includes(r)))
  )
    throw forbidden(MSG.notYourAccount);
  return account;
}

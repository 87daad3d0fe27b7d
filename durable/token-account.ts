/**
 * TokenAccount: one durable object per token account, the only place its balance changes.
 * Callers (merch-service, the payment webhooks) reach it by RPC through
 * `env.TokenAccount.getByName(accountId)`.
 *
 * This first version keeps a ledger of credits (a token bundle bought, a grant) and the
 * account's status. Holds, commits and voids (spending on a purchase, DESIGN.md "Money and
 * points") come in a later issue; until then nothing here can lower a balance.
 *
 * Invariants:
 * - The balance is the sum of the ledger's amounts; both change in one SQLite transaction,
 *   so neither exists without the other.
 * - Every credit carries an idempotency key, unique in the ledger. The same key again
 *   returns the first answer (`duplicate: true`) and changes nothing; the same key with a
 *   different amount is refused, since it cannot be the same operation.
 * - Every method body is synchronous (SQLite calls are), so concurrent calls run one after
 *   another and never see a half-applied credit.
 * - `updatedAt` strictly increases with every balance change (max(now, last + 1)), so it
 *   can serve as the `balanceUnmodifiedSince` version a client sends back.
 * - A disabled account refuses credits; reading it still works.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";

export const ACCOUNT_STATUSES = ["active", "disabled"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface TokenAccountView {
  balance: number;
  /** ISO 8601, millisecond precision. */
  updatedAt: string;
  status: AccountStatus;
}

export interface CreditResult {
  /** The balance right after this credit (for a duplicate: after the first one). */
  balance: number;
  updatedAt: string;
  transactionId: string;
  /** True when the key had been used before and nothing changed this time. */
  duplicate: boolean;
}

type MetaRow = { balance: number; updated_at: number; status: AccountStatus };
type LedgerRow = { id: string; amount: number; balance_after: number; created_at: number };

const MAX_KEY_LENGTH = 200;

export class TokenAccount extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Schema before any call is served: the gate holds every request until this finishes.
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(`CREATE TABLE IF NOT EXISTS account_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        balance INTEGER NOT NULL CHECK (balance >= 0),
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled'))
      )`);
      sql.exec(`INSERT OR IGNORE INTO account_meta (id, balance, updated_at, status) VALUES (1, 0, ?, 'active')`, Date.now());
      // balance_after lets a retried key get back exactly the answer the first call got.
      sql.exec(`CREATE TABLE IF NOT EXISTS ledger (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('credit')),
        amount INTEGER NOT NULL CHECK (amount > 0),
        idempotency_key TEXT NOT NULL UNIQUE,
        balance_after INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`);
    });
  }

  /**
   * Adds `amount` tokens. Retrying with the same `idempotencyKey` is safe: it returns the
   * first answer with `duplicate: true`.
   *
   * @example
   * await env.TokenAccount.getByName(accountId).credit(500, `bundle:${orderId}`)
   */
  credit(amount: number, idempotencyKey: string): CreditResult {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error("Amount must be a positive integer.");
    if (typeof idempotencyKey !== "string" || idempotencyKey.length === 0 || idempotencyKey.length > MAX_KEY_LENGTH) {
      throw new Error(`Idempotency key must be a string of 1 to ${MAX_KEY_LENGTH} characters.`);
    }
    const sql = this.ctx.storage.sql;
    return this.ctx.storage.transactionSync(() => {
      // The key is checked before the status: a credit that succeeded before the account was
      // disabled still answers its retries with the original result.
      const prior = sql.exec<LedgerRow>(`SELECT id, amount, balance_after, created_at FROM ledger WHERE idempotency_key = ?`, idempotencyKey).toArray()[0];
      if (prior) {
        if (prior.amount !== amount) throw new Error("Idempotency key was already used for a different amount.");
        return { balance: prior.balance_after, updatedAt: iso(prior.created_at), transactionId: prior.id, duplicate: true };
      }
      const meta = this.#meta();
      if (meta.status !== "active") throw new Error("Token account is disabled.");
      const balance = meta.balance + amount;
      if (!Number.isSafeInteger(balance)) throw new Error("Balance would be too large.");
      const now = Math.max(Date.now(), meta.updated_at + 1);
      const id = crypto.randomUUID();
      sql.exec(
        `INSERT INTO ledger (id, type, amount, idempotency_key, balance_after, created_at) VALUES (?, 'credit', ?, ?, ?, ?)`,
        id,
        amount,
        idempotencyKey,
        balance,
        now,
      );
      sql.exec(`UPDATE account_meta SET balance = ?, updated_at = ? WHERE id = 1`, balance, now);
      return { balance, updatedAt: iso(now), transactionId: id, duplicate: false };
    });
  }

  getAccount(): TokenAccountView {
    const meta = this.#meta();
    return { balance: meta.balance, updatedAt: iso(meta.updated_at), status: meta.status };
  }

  /** Enables or disables the account (an admin action); the balance is kept either way. */
  setStatus(status: AccountStatus): TokenAccountView {
    if (!ACCOUNT_STATUSES.includes(status)) throw new Error(`Status must be one of ${ACCOUNT_STATUSES.join(", ")}.`);
    // updatedAt is the balance's version, so a status change leaves it alone.
    this.ctx.storage.sql.exec(`UPDATE account_meta SET status = ? WHERE id = 1`, status);
    return this.getAccount();
  }

  #meta(): MetaRow {
    return this.ctx.storage.sql.exec<MetaRow>(`SELECT balance, updated_at, status FROM account_meta WHERE id = 1`).one();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

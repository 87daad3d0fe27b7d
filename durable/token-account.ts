/**
 * TokenAccount: one durable object per token account, the only place its balance changes.
 * Callers (merch-service, the payment webhooks) reach it by RPC through
 * `env.TokenAccount.getByName(accountId)`.
 *
 * The ledger holds the spec's four transaction types (seed 000): `credit` (a bundle bought,
 * a grant), `hold` (a purchase starts), then `commit` (it is charged) or `voided` (it is
 * released, by the caller or by expiry).
 *
 * Invariants:
 * - `balance` (settled) = credits - commits; `held` = the sum of open holds; the available
 *   balance `balance - held` never goes below zero (a CHECK on the row, and every hold
 *   checks it first). Each change writes the ledger row and the totals in one SQLite
 *   transaction, so neither exists without the other.
 * - Every operation carries an idempotency key, unique in the ledger. The same key again
 *   returns the first answer (`duplicate: true`) and changes nothing; the same key for a
 *   different operation is refused (`key_conflict`). Refusals are not stored: a hold refused
 *   for want of tokens may succeed with the same key after a credit.
 * - A hold ends once: commit and void are also idempotent by hold, so a second commit (any
 *   key) answers with the first, and commit after void (or void after commit) is refused.
 * - An open hold expires after HOLD_TTL_MS: the alarm voids it (a purchase whose caller died
 *   between hold and commit releases its tokens). A commit that reaches the hold before the
 *   alarm still commits.
 * - Every method body is synchronous (SQLite calls are), so concurrent calls run one after
 *   another and never see a half-applied change.
 * - `updatedAt` strictly increases with every ledger write (max(now, last + 1)), so it can
 *   serve as the `balanceUnmodifiedSince` version a client sends back.
 * - A disabled account refuses every write but answers retries of earlier ones and reads.
 * - A purchase hold (`hold(..., purchase)`) is ended only by its purchase (`endPurchase`),
 *   by the room's answer to "was it delivered?" (workers/merch-service/token-shop/
 *   purchase-end.ts): never by `commit`/`void` (an owner's void is refused, so a gift cannot
 *   be delivered and then released), and not blindly by expiry: when its time is up the
 *   alarm asks the room and commits or voids by that answer, retrying while the room cannot
 *   be reached. It ends on a disabled account too (its tokens were held while active). The
 *   purchase's D1 row follows through `purchase_settles`, an outbox drained after each end
 *   and by the alarm, so a request that died after the end still leaves the row settled.
 *
 * Expected refusals are returned (`ok: false` with a code), not thrown: a rejected RPC is an
 * exception in every caller, and these are normal outcomes. Programming errors (a negative
 * amount, a missing key) throw.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";
import {
  closeInRoom,
  type PurchaseOutcome,
} from "../workers/merch-service/token-shop/purchase-end";
import { PurchaseSettles } from "./token-account-settles";

export const ACCOUNT_STATUSES = ["active", "disabled"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export const TRANSACTION_TYPES = ["credit", "hold", "commit", "voided"] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type HoldStatus = "open" | "committed" | "voided";

/**
 * How long a hold stays open without a commit or void. A purchase holds, delivers to the
 * room (one RPC) and commits within a second; five minutes covers slow retries without
 * locking a buyer's tokens for long when the caller is gone.
 */
export const HOLD_TTL_MS = 5 * 60_000;
/** A purchase hold whose room did not answer at expiry, or a D1 row not yet settled, is tried again this much later. */
export const PURCHASE_RETRY_MS = 30_000;

/** The purchase a hold belongs to: the room that decides whether it was delivered. */
export interface PurchaseRef {
  purchaseId: string;
  roomUuid: string;
}

export interface TokenAccountView {
  /** Available tokens: settled balance minus open holds. What the buyer can spend. */
  balance: number;
  /** Tokens in open holds (not yet committed or voided). */
  heldBalance: number;
  /** ISO 8601, millisecond precision; changes with every ledger write. */
  updatedAt: string;
  status: AccountStatus;
}

export interface CreditResult {
  /** The available balance right after this credit (for a duplicate: after the first one). */
  balance: number;
  updatedAt: string;
  transactionId: string;
  /** True when the key had been used before and nothing changed this time. */
  duplicate: boolean;
}

export interface TransactionOk {
  ok: true;
  transactionId: string;
  type: TransactionType;
  amount: number;
  /** The hold this transaction is (hold) or ends (commit, voided). */
  holdId: string | null;
  /**
   * For a hold: where it stands now (a retried hold may find it already committed or
   * expired, and must not deliver again); null for other types.
   */
  holdStatus: HoldStatus | null;
  /** The available balance right after it. */
  balance: number;
  updatedAt: string;
  duplicate: boolean;
}

export type RefusalCode =
  | "insufficient_funds"
  | "disabled"
  | "stale"
  | "hold_not_found"
  | "hold_voided"
  | "hold_committed"
  | "key_conflict"
  | "purchase_hold";

export interface TransactionRefused {
  ok: false;
  code: RefusalCode;
  message: string;
  /** The account as it is now, so a caller can show the right balance. */
  balance: number;
  updatedAt: string;
}

export type TransactionResult = TransactionOk | TransactionRefused;

/** Optimistic concurrency for a hold (the purchase's balanceUnmodifiedSince / lastTokenBalance). */
export interface HoldExpectations {
  /** ISO time the client last saw `updatedAt` at; any later write makes the hold stale. */
  unmodifiedSince?: string;
  /** The available balance the client showed; a different one makes the hold stale. */
  balance?: number;
}

export interface LedgerEntry {
  id: string;
  type: TransactionType;
  amount: number;
  holdId: string | null;
  holdStatus: HoldStatus | null;
  memo: string | null;
  balance: number;
  createdAt: string;
}

type MetaRow = { balance: number; held: number; updated_at: number; status: AccountStatus };
type TxRow = {
  id: string;
  type: TransactionType;
  amount: number;
  idempotency_key: string;
  hold_id: string | null;
  hold_status: HoldStatus | null;
  expires_at: number | null;
  memo: string | null;
  available_after: number;
  created_at: number;
  /** JSON PurchaseRef on a purchase's hold. */
  purchase: string | null;
};

const MAX_KEY_LENGTH = 200;
const MAX_MEMO_LENGTH = 200;
export const MAX_LIST = 100;

export class TokenAccount extends DurableObject<Env> {
  /** The D1 rows of ended purchases still to settle (token-account-settles.ts). */
  #settles!: PurchaseSettles;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Schema before any call is served: the gate holds every request until this finishes.
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(`CREATE TABLE IF NOT EXISTS account_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        balance INTEGER NOT NULL CHECK (balance >= 0),
        held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance),
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled'))
      )`);
      sql.exec(
        `INSERT OR IGNORE INTO account_meta (id, balance, held, updated_at, status) VALUES (1, 0, 0, ?, 'active')`,
        Date.now(),
      );
      // available_after lets a retried key get back exactly the answer the first call got.
      // hold_status and expires_at are set on hold rows only; hold_id on commit/voided rows
      // names the hold they end (unique: a hold ends once).
      sql.exec(`CREATE TABLE IF NOT EXISTS ledger (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('credit', 'hold', 'commit', 'voided')),
        amount INTEGER NOT NULL CHECK (amount > 0),
        idempotency_key TEXT NOT NULL UNIQUE,
        hold_id TEXT UNIQUE,
        hold_status TEXT CHECK (hold_status IN ('open', 'committed', 'voided')),
        expires_at INTEGER,
        memo TEXT,
        available_after INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`);
      sql.exec(
        `CREATE INDEX IF NOT EXISTS ledger_open_holds ON ledger (expires_at) WHERE hold_status = 'open'`,
      );
      sql.exec(`CREATE INDEX IF NOT EXISTS ledger_by_time ON ledger (created_at)`);
      // Added with purchase holds: older objects get the column (null: not a purchase's hold).
      const cols = sql.exec<{ name: string }>(`PRAGMA table_info(ledger)`).toArray();
      if (!cols.some((c) => c.name === "purchase"))
        sql.exec(`ALTER TABLE ledger ADD COLUMN purchase TEXT`);
      this.#settles = new PurchaseSettles(sql, env, () => this.#scheduleExpiry());
    });
  }

  /**
   * Adds `amount` tokens. Retrying with the same `idempotencyKey` is safe: it returns the
   * first answer with `duplicate: true`. Throws on a disabled account or a reused key (the
   * webhook that credits treats both as a bug to retry or report, not a user's mistake).
   *
   * @example
   * await env.TokenAccount.getByName(accountId).credit(500, `checkout:${sessionId}`)
   */
  credit(amount: number, idempotencyKey: string, memo?: string): CreditResult {
    checkAmount(amount);
    checkKey(idempotencyKey);
    return this.ctx.storage.transactionSync(() => {
      const prior = this.#byKey(idempotencyKey);
      if (prior) {
        if (prior.type !== "credit" || prior.amount !== amount)
          throw new Error("Idempotency key was already used for a different amount.");
        return {
          balance: prior.available_after,
          updatedAt: iso(prior.created_at),
          transactionId: prior.id,
          duplicate: true,
        };
      }
      const meta = this.#meta();
      if (meta.status !== "active") throw new Error("Token account is disabled.");
      const balance = meta.balance + amount;
      if (!Number.isSafeInteger(balance)) throw new Error("Balance would be too large.");
      const row = this.#write(
        meta,
        { type: "credit", amount, key: idempotencyKey, memo },
        balance,
        meta.held,
      );
      return {
        balance: row.available_after,
        updatedAt: iso(row.created_at),
        transactionId: row.id,
        duplicate: false,
      };
    });
  }

  /**
   * Reserves `amount` tokens for a purchase. Refused when the available balance is short,
   * the account is disabled, or the client's view (`expect`) is stale. The hold expires
   * after HOLD_TTL_MS unless committed or voided first.
   */
  hold(
    amount: number,
    idempotencyKey: string,
    expect: HoldExpectations = {},
    memo?: string,
    purchase?: PurchaseRef,
  ): TransactionResult {
    checkAmount(amount);
    checkKey(idempotencyKey);
    const result = this.ctx.storage.transactionSync((): TransactionResult => {
      const prior = this.#byKey(idempotencyKey);
      if (prior)
        return prior.type === "hold" && prior.amount === amount
          ? ok(prior, true)
          : this.#refuse(
              "key_conflict",
              "This idempotency key was already used for another operation.",
            );
      const meta = this.#meta();
      if (meta.status !== "active") return this.#refuse("disabled", "Token account is disabled.");
      const available = meta.balance - meta.held;
      if (expect.unmodifiedSince !== undefined) {
        const since = Date.parse(expect.unmodifiedSince);
        if (!Number.isFinite(since) || meta.updated_at > since)
          return this.#refuse(
            "stale",
            "Your token balance has changed. Please review it and try again.",
          );
      }
      if (expect.balance !== undefined && expect.balance !== available)
        return this.#refuse(
          "stale",
          "Your token balance has changed. Please review it and try again.",
        );
      if (available < amount)
        return this.#refuse(
          "insufficient_funds",
          `Not enough tokens: this costs ${amount} and you have ${available}.`,
        );
      const expiresAt = Date.now() + HOLD_TTL_MS;
      return ok(
        this.#write(
          meta,
          { type: "hold", amount, key: idempotencyKey, memo, expiresAt, purchase },
          meta.balance,
          meta.held + amount,
        ),
        false,
      );
    });
    if (result.ok && !result.duplicate) this.#scheduleExpiry();
    return result;
  }

  /** Charges an open hold: the tokens leave the account for good (not a purchase's hold). */
  commit(holdId: string, idempotencyKey: string): TransactionResult {
    return this.#end("commit", holdId, idempotencyKey);
  }

  /** Releases an open hold: the tokens are available again (not a purchase's hold). */
  void(holdId: string, idempotencyKey: string): TransactionResult {
    return this.#end("voided", holdId, idempotencyKey);
  }

  /**
   * Ends a purchase's hold by the room's answer (purchase-end.ts): `committed` when it was
   * delivered, `voided` when it was not and never will be. Idempotent; the same keys the
   * purchase always used (`commit:<id>`, `void:<id>`). Its D1 row is settled after.
   */
  endPurchase(holdId: string, purchaseId: string, outcome: PurchaseOutcome): TransactionResult {
    const type = outcome === "committed" ? "commit" : "voided";
    const key = `${outcome === "committed" ? "commit" : "void"}:${purchaseId}`;
    const result = this.#end(type, holdId, key, true, purchaseId);
    if (result.ok) void this.#settles.drain();
    return result;
  }

  /**
   * Voids every plain hold past its expiry; a purchase's hold past its expiry is finished by
   * its room's answer (retried later if the room cannot be reached). Then the D1 rows still
   * to settle, then the next alarm.
   */
  async alarm(): Promise<void> {
    const expired = this.ctx.storage.sql
      .exec<TxRow>(
        `SELECT * FROM ledger WHERE hold_status = 'open' AND expires_at <= ?`,
        Date.now(),
      )
      .toArray();
    for (const hold of expired) {
      const purchase = hold.purchase ? (JSON.parse(hold.purchase) as PurchaseRef) : null;
      if (!purchase) {
        this.#end("voided", hold.id, `expire:${hold.id}`, true);
        continue;
      }
      try {
        const outcome = await closeInRoom(this.env, purchase.roomUuid, purchase.purchaseId);
        this.endPurchase(hold.id, purchase.purchaseId, outcome);
      } catch (err) {
        console.error(`purchase ${purchase.purchaseId}: the room did not answer; retrying`, err);
        this.ctx.storage.sql.exec(
          `UPDATE ledger SET expires_at = ? WHERE id = ?`,
          Date.now() + PURCHASE_RETRY_MS,
          hold.id,
        );
      }
    }
    await this.#settles.drain();
    this.#scheduleExpiry();
  }

  getAccount(): TokenAccountView {
    const meta = this.#meta();
    return {
      balance: meta.balance - meta.held,
      heldBalance: meta.held,
      updatedAt: iso(meta.updated_at),
      status: meta.status,
    };
  }

  /** The ledger, newest first (a history page). */
  transactions(limit = 20, offset = 0): { data: LedgerEntry[]; total: number } {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST)
      throw new Error(`limit must be an integer from 1 to ${MAX_LIST}.`);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new Error("offset must be a non-negative integer.");
    const sql = this.ctx.storage.sql;
    const rows = sql
      .exec<TxRow>(
        `SELECT * FROM ledger ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
        limit,
        offset,
      )
      .toArray();
    const total = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ledger`).one().n;
    return {
      total,
      data: rows.map((r) => ({
        id: r.id,
        type: r.type,
        amount: r.amount,
        holdId: r.type === "hold" ? r.id : r.hold_id,
        holdStatus: r.hold_status,
        memo: r.memo,
        balance: r.available_after,
        createdAt: iso(r.created_at),
      })),
    };
  }

  /** Enables or disables the account (an admin action); the ledger is kept either way. */
  setStatus(status: AccountStatus): TokenAccountView {
    if (!ACCOUNT_STATUSES.includes(status))
      throw new Error(`Status must be one of ${ACCOUNT_STATUSES.join(", ")}.`);
    // updatedAt is the balance's version, so a status change leaves it alone.
    this.ctx.storage.sql.exec(`UPDATE account_meta SET status = ? WHERE id = 1`, status);
    return this.getAccount();
  }

  /**
   * Commit or void of a hold; `internal` (the expiry alarm, a purchase's end) works on a
   * disabled account too. A purchase's hold is ended only with its `purchaseId`.
   */
  #end(
    type: "commit" | "voided",
    holdId: string,
    idempotencyKey: string,
    internal = false,
    purchaseId?: string,
  ): TransactionResult {
    checkKey(holdId, "holdId");
    checkKey(idempotencyKey);
    return this.ctx.storage.transactionSync((): TransactionResult => {
      const prior = this.#byKey(idempotencyKey);
      if (prior)
        return prior.type === type && prior.hold_id === holdId
          ? ok(prior, true)
          : this.#refuse(
              "key_conflict",
              "This idempotency key was already used for another operation.",
            );
      const hold = this.ctx.storage.sql
        .exec<TxRow>(`SELECT * FROM ledger WHERE id = ? AND type = 'hold'`, holdId)
        .toArray()[0];
      if (!hold) return this.#refuse("hold_not_found", "That hold does not exist.");
      const purchase = hold.purchase ? (JSON.parse(hold.purchase) as PurchaseRef) : null;
      // (A hold from before purchase holds were marked has no ref: its purchase may end it.)
      if (purchase && purchase.purchaseId !== purchaseId)
        return this.#refuse(
          "purchase_hold",
          "This hold belongs to a purchase in progress; it ends with the purchase.",
        );
      if (hold.hold_status !== "open") {
        // The hold already ended: the same ending again is the first answer; the other is refused.
        const ending = this.ctx.storage.sql
          .exec<TxRow>(`SELECT * FROM ledger WHERE hold_id = ?`, holdId)
          .one();
        if (ending.type === type) return ok(ending, true);
        return hold.hold_status === "voided"
          ? this.#refuse(
              "hold_voided",
              "This purchase was cancelled (its hold expired or was voided).",
            )
          : this.#refuse("hold_committed", "This purchase was already charged.");
      }
      const meta = this.#meta();
      if (!internal && meta.status !== "active")
        return this.#refuse("disabled", "Token account is disabled.");
      const balance = type === "commit" ? meta.balance - hold.amount : meta.balance;
      this.ctx.storage.sql.exec(
        `UPDATE ledger SET hold_status = ? WHERE id = ?`,
        type === "commit" ? "committed" : "voided",
        holdId,
      );
      if (purchase)
        this.#settles.add(purchase.purchaseId, type === "commit" ? "committed" : "voided");
      return ok(
        this.#write(
          meta,
          { type, amount: hold.amount, key: idempotencyKey, holdId, memo: hold.memo ?? undefined },
          balance,
          meta.held - hold.amount,
        ),
        false,
      );
    });
  }

  #write(
    meta: MetaRow,
    tx: {
      type: TransactionType;
      amount: number;
      key: string;
      memo?: string;
      holdId?: string;
      expiresAt?: number;
      purchase?: PurchaseRef;
    },
    balance: number,
    held: number,
  ): TxRow {
    if (tx.memo !== undefined && (typeof tx.memo !== "string" || tx.memo.length > MAX_MEMO_LENGTH))
      throw new Error(`memo must be at most ${MAX_MEMO_LENGTH} characters.`);
    const now = Math.max(Date.now(), meta.updated_at + 1);
    const row: TxRow = {
      id: crypto.randomUUID(),
      type: tx.type,
      amount: tx.amount,
      idempotency_key: tx.key,
      hold_id: tx.holdId ?? null,
      hold_status: tx.type === "hold" ? "open" : null,
      expires_at: tx.expiresAt ?? null,
      memo: tx.memo ?? null,
      available_after: balance - held,
      created_at: now,
      purchase: tx.purchase ? JSON.stringify(tx.purchase) : null,
    };
    this.ctx.storage.sql.exec(
      `INSERT INTO ledger (id, type, amount, idempotency_key, hold_id, hold_status, expires_at, memo, available_after, created_at, purchase) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.id,
      row.type,
      row.amount,
      row.idempotency_key,
      row.hold_id,
      row.hold_status,
      row.expires_at,
      row.memo,
      row.available_after,
      row.created_at,
      row.purchase,
    );
    this.ctx.storage.sql.exec(
      `UPDATE account_meta SET balance = ?, held = ?, updated_at = ? WHERE id = 1`,
      balance,
      held,
      now,
    );
    return row;
  }

  #scheduleExpiry() {
    const sql = this.ctx.storage.sql;
    const hold = sql
      .exec<{ at: number | null }>(
        `SELECT MIN(expires_at) AS at FROM ledger WHERE hold_status = 'open'`,
      )
      .one().at;
    const retry = this.#settles.pending() ? Date.now() + PURCHASE_RETRY_MS : null;
    const next = hold === null ? retry : retry === null ? hold : Math.min(hold, retry);
    if (next === null) void this.ctx.storage.deleteAlarm();
    else void this.ctx.storage.setAlarm(next);
  }

  #refuse(code: RefusalCode, message: string): TransactionRefused {
    const view = this.getAccount();
    return { ok: false, code, message, balance: view.balance, updatedAt: view.updatedAt };
  }

  #byKey(key: string): TxRow | undefined {
    return this.ctx.storage.sql
      .exec<TxRow>(`SELECT * FROM ledger WHERE idempotency_key = ?`, key)
      .toArray()[0];
  }

  #meta(): MetaRow {
    return this.ctx.storage.sql
      .exec<MetaRow>(`SELECT balance, held, updated_at, status FROM account_meta WHERE id = 1`)
      .one();
  }
}

function ok(row: TxRow, duplicate: boolean): TransactionOk {
  return {
    ok: true,
    transactionId: row.id,
    type: row.type,
    amount: row.amount,
    holdId: row.type === "hold" ? row.id : row.hold_id,
    holdStatus: row.hold_status,
    balance: row.available_after,
    updatedAt: iso(row.created_at),
    duplicate,
  };
}

function checkAmount(amount: number) {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new Error("Amount must be a positive integer.");
}

function checkKey(key: string, name = "Idempotency key") {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new Error(`${name} must be a string of 1 to ${MAX_KEY_LENGTH} characters.`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * TokenAccount: one durable object per token account, the only place its balance changes.
 * Callers (merch-service, the payment webhooks) reach it by RPC through
 * `env.TokenAccount.getByName(accountId)`.
 *
 * The ledger (token-account-ledger.ts: tables, upgrades, the one write) holds the spec's four
 * transaction types (seed 000): `credit` (a bundle bought, a grant), `hold` (a purchase
 * starts), then `commit` (it is charged) or `voided` (it is released, by the caller or by
 * expiry); and ours, `clawback` and `repay` (refunds, below).
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
 * - A disabled account refuses every write but answers retries of earlier ones and reads
 *   (take-backs excepted: a refund is a fact about money already moved).
 * - Refunds and disputes take back what they credited, once (token-account-debt.ts): what the
 *   balance cannot cover becomes `debt`; while debt > 0 every hold is refused, and every credit
 *   (and every voided hold) pays the debt first. `clawback` and `repay` ledger rows say so.
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
import {
  AccountDebt,
  debtMessage,
  type GiveBackRequest,
  type TakeBackRequest,
  type TakeBackResult,
} from "./token-account-debt";
import { DebtMirror } from "./token-account-debt-mirror";
import {
  ACCOUNT_STATUSES,
  iso,
  Ledger,
  type AccountStatus,
  type HoldStatus,
  type LedgerEntry,
  type LedgerWrite,
  type MetaRow,
  type PurchaseRef,
  type TransactionType,
  type TxRow,
} from "./token-account-ledger";
import { PurchaseSettles } from "./token-account-settles";

export {
  ACCOUNT_STATUSES,
  MAX_LIST,
  TRANSACTION_TYPES,
  type AccountStatus,
  type HoldStatus,
  type LedgerEntry,
  type PurchaseRef,
  type TransactionType,
} from "./token-account-ledger";
export type { TakeBackRequest, GiveBackRequest, TakeBackResult } from "./token-account-debt";

/**
 * How long a hold stays open without a commit or void. A purchase holds, delivers to the
 * room (one RPC) and commits within a second; five minutes covers slow retries without
 * locking a buyer's tokens for long when the caller is gone.
 */
export const HOLD_TTL_MS = 5 * 60_000;
/** A purchase hold whose room did not answer at expiry, or a D1 row not yet settled, is tried again this much later. */
export const PURCHASE_RETRY_MS = 30_000;

export interface TokenAccountView {
  /** Available tokens: settled balance minus open holds. What the buyer can spend. */
  balance: number;
  /** Tokens in open holds (not yet committed or voided). */
  heldBalance: number;
  /** Tokens a refund took back that the balance could not cover; paid first by the next credits. */
  debt: number;
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
  | "purchase_hold"
  | "in_debt";

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

const MAX_KEY_LENGTH = 200;

export class TokenAccount extends DurableObject<Env> {
  #ledger!: Ledger;
  /** Refunds' take-backs and the debt they leave (token-account-debt.ts). */
  #debt!: AccountDebt;
  /** The D1 copy of the debt, for the admin list (token-account-debt-mirror.ts). */
  #mirror!: DebtMirror;
  /** The D1 rows of ended purchases still to settle (token-account-settles.ts). */
  #settles!: PurchaseSettles;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Schema before any call is served: the gate holds every request until this finishes.
    ctx.blockConcurrencyWhile(async () => {
      this.#ledger = new Ledger(ctx.storage);
      this.#mirror = new DebtMirror(ctx.storage.sql, env, () => this.#scheduleExpiry());
      this.#debt = new AccountDebt(ctx.storage, this.#ledger, this.#mirror);
      this.#settles = new PurchaseSettles(ctx.storage.sql, env, () => this.#scheduleExpiry());
    });
  }

  /**
   * Adds `amount` tokens; while the account owes tokens after a refund they pay that first
   * (a `repay` row), and `balance` is what is left after it. Retrying with the same
   * `idempotencyKey` is safe: it returns the first answer with `duplicate: true`. Throws on a
   * disabled account or a reused key (the webhook that credits treats both as a bug to retry
   * or report, not a user's mistake).
   *
   * @example
   * await env.TokenAccount.getByName(accountId).credit(500, `checkout:${sessionId}`)
   */
  credit(amount: number, idempotencyKey: string, memo?: string): CreditResult {
    checkAmount(amount);
    checkKey(idempotencyKey);
    const result = this.ctx.storage.transactionSync(() => {
      const prior = this.#ledger.byKey(idempotencyKey);
      if (prior) {
        if (prior.type !== "credit" || prior.amount !== amount)
          throw new Error("Idempotency key was already used for a different amount.");
        const repaid = this.#ledger.byKey(repayKey(idempotencyKey));
        return {
          balance: (repaid ?? prior).available_after,
          updatedAt: iso((repaid ?? prior).created_at),
          transactionId: prior.id,
          duplicate: true,
        };
      }
      const meta = this.#ledger.meta();
      if (meta.status !== "active") throw new Error("Token account is disabled.");
      const balance = meta.balance + amount;
      if (!Number.isSafeInteger(balance)) throw new Error("Balance would be too large.");
      const row = this.#write(
        meta,
        { type: "credit", amount, key: idempotencyKey, memo },
        balance,
        meta.held,
      );
      const repaid = this.#debt.repay(repayKey(idempotencyKey), memo);
      return {
        balance: (repaid ?? row).available_after,
        updatedAt: iso((repaid ?? row).created_at),
        transactionId: row.id,
        duplicate: false,
      };
    });
    if (this.#mirror.pending()) void this.#mirror.drain();
    return result;
  }

  /**
   * Reserves `amount` tokens for a purchase. Refused when the account owes tokens after a
   * refund, the available balance is short, the account is disabled, or the client's view
   * (`expect`) is stale. The hold expires after HOLD_TTL_MS unless committed or voided first.
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
      // A retry finds its hold first, so a purchase in progress still finishes after a refund.
      const prior = this.#ledger.byKey(idempotencyKey);
      if (prior)
        return prior.type === "hold" && prior.amount === amount
          ? ok(prior, true)
          : this.#refuse(
              "key_conflict",
              "This idempotency key was already used for another operation.",
            );
      const meta = this.#ledger.meta();
      if (meta.status !== "active") return this.#refuse("disabled", "Token account is disabled.");
      if (meta.debt > 0) return this.#refuse("in_debt", debtMessage(meta.debt));
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
   * Takes back what a refunded or disputed payment credited (token-account-debt.ts): once per
   * credit and share, whatever the order or number of deliveries; what the balance cannot
   * cover becomes debt. `credit_not_found` when no credit has the key `ref` here.
   */
  async takeBack(req: TakeBackRequest): Promise<TakeBackResult> {
    checkTakeBack(req);
    if (!Number.isSafeInteger(req.part) || !Number.isSafeInteger(req.whole))
      throw new Error("part and whole must be integers.");
    if (req.part < 0 || req.whole < 1) throw new Error("part must be >= 0 and whole >= 1.");
    const result = this.ctx.storage.transactionSync(() => this.#debt.take(req));
    // Answered once the admin list's copy is written (or left to the alarm if D1 failed).
    await this.#mirror.drain();
    return result;
  }

  /** Reverses one take-back (a dispute won): what it took comes back, paying any debt first. */
  async giveBack(req: GiveBackRequest): Promise<TakeBackResult> {
    checkTakeBack(req);
    checkKey(req.reverses, "reverses");
    const result = this.ctx.storage.transactionSync(() => this.#debt.give(req));
    await this.#mirror.drain();
    return result;
  }

  /**
   * Voids every plain hold past its expiry; a purchase's hold past its expiry is finished by
   * its room's answer (retried later if the room cannot be reached). Then the D1 rows still
   * to settle and the debt's copy, then the next alarm.
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
    await this.#mirror.drain();
    this.#scheduleExpiry();
  }

  getAccount(): TokenAccountView {
    const meta = this.#ledger.meta();
    return {
      balance: meta.balance - meta.held,
      heldBalance: meta.held,
      debt: meta.debt,
      updatedAt: iso(meta.updated_at),
      status: meta.status,
    };
  }

  /** The ledger (or its rows of `types`), newest first (a history page). */
  transactions(
    limit = 20,
    offset = 0,
    types?: TransactionType[],
  ): { data: LedgerEntry[]; total: number } {
    return this.#ledger.list(limit, offset, types);
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
   * disabled account too. A purchase's hold is ended only with its `purchaseId`. A void
   * while the account owes tokens pays the debt with what it releases.
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
    const result = this.ctx.storage.transactionSync((): TransactionResult => {
      const prior = this.#ledger.byKey(idempotencyKey);
      if (prior)
        return prior.type === type && prior.hold_id === holdId
          ? this.#ended(prior, true)
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
        if (ending.type === type) return this.#ended(ending, true);
        return hold.hold_status === "voided"
          ? this.#refuse(
              "hold_voided",
              "This purchase was cancelled (its hold expired or was voided).",
            )
          : this.#refuse("hold_committed", "This purchase was already charged.");
      }
      const meta = this.#ledger.meta();
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
      const row = this.#write(
        meta,
        { type, amount: hold.amount, key: idempotencyKey, holdId, memo: hold.memo ?? undefined },
        balance,
        meta.held - hold.amount,
      );
      if (type === "voided") this.#debt.repay(repayKey(idempotencyKey));
      return this.#ended(row, false);
    });
    if (this.#mirror.pending()) void this.#mirror.drain();
    return result;
  }

  /** A commit's or void's answer; after a void that paid debt, the balance after that. */
  #ended(row: TxRow, duplicate: boolean): TransactionOk {
    const repaid = row.type === "voided" ? this.#ledger.byKey(repayKey(row.idempotency_key)) : null;
    return { ...ok(row, duplicate), ...(repaid ? { balance: repaid.available_after } : {}) };
  }

  #write(meta: MetaRow, tx: LedgerWrite, balance: number, held: number): TxRow {
    return this.#ledger.write(meta, tx, balance, held);
  }

  #scheduleExpiry() {
    const sql = this.ctx.storage.sql;
    const hold = sql
      .exec<{ at: number | null }>(
        `SELECT MIN(expires_at) AS at FROM ledger WHERE hold_status = 'open'`,
      )
      .one().at;
    const retry =
      this.#settles.pending() || this.#mirror.pending() ? Date.now() + PURCHASE_RETRY_MS : null;
    const next = hold === null ? retry : retry === null ? hold : Math.min(hold, retry);
    if (next === null) void this.ctx.storage.deleteAlarm();
    else void this.ctx.storage.setAlarm(next);
  }

  #refuse(code: RefusalCode, message: string): TransactionRefused {
    const view = this.getAccount();
    return { ok: false, code, message, balance: view.balance, updatedAt: view.updatedAt };
  }
}

/** The key of the `repay` row a credit or void wrote, derived so its retry finds it. */
const repayKey = (key: string) => `${key}#repay`;

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

function checkTakeBack(req: { accountId: string; ref: string; key: string }) {
  checkKey(req.accountId, "accountId");
  checkKey(req.ref, "ref");
  checkKey(req.key);
}

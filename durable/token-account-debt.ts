/**
 * Refunds and disputes on a TokenAccount (issue 12): tokens a payment credited are taken back
 * when the payment is refunded or disputed, exactly once, and what was already spent becomes
 * a debt that the next tokens to arrive pay off first. Used by durable/token-account.ts, inside
 * its transactions; the ledger itself is token-account-ledger.ts.
 *
 * A take-back is about one credit (`ref`, the credit's own idempotency key such as
 * `checkout:<sessionId>` or `apple:<transactionId>`) and says how much of it the provider has
 * taken back in all (`part` of `whole`: Stripe's cumulative `amount_refunded` of the charge's
 * `amount`; 1 of 1 for everything). The object turns that into a target in tokens, rounded
 * down (the full share is the whole credit, so partial refunds never total more than it), and
 * takes only target - what it has taken for that credit already. So:
 * - the same event again, twenty racing deliveries of it, or an older partial refund arriving
 *   after a newer one take nothing more: their target is already met;
 * - a refund and a dispute of one charge never take back more than the credit between them.
 * Each take-back is also recorded by its own key (`takebacks`), so a retry gets the first answer.
 *
 * Taking back: min(tokens, available balance) leaves the balance; the rest becomes `debt`.
 * Open holds are not touched (their purchase may still be delivered); a hold voided later
 * pays the debt with what it releases. While debt > 0 every hold is refused (the object says
 * so), and every credit pays the debt first (a `repay` row), the rest to the balance.
 *
 * Giving back (a dispute won, an App Store refund reversed) reverses one take-back by its key:
 * what the credit still has taken back afterwards is the largest target of the take-backs not
 * reversed (a partial refund stays taken), and the difference comes back as a credit, which
 * pays any debt first. A give-back that arrives before its take-back leaves a marker, and the
 * take-back, when it comes, takes nothing.
 *
 * Both work on a disabled account too: a refund is a fact about money already moved.
 */
import type { DebtMirror } from "./token-account-debt-mirror";
import { iso, type Ledger, type TxRow } from "./token-account-ledger";

export interface TakeBackRequest {
  /** The account's D1 id (the object learns it here: its debt's D1 copy is keyed by it). */
  accountId: string;
  /** The idempotency key of the credit this is about. */
  ref: string;
  /** This take-back's own key (`refund:<chargeId>:<amountRefunded>`, `dispute:<id>`, ...). */
  key: string;
  /** How much of the payment has been taken back in all: `part` of `whole` (same unit). */
  part: number;
  whole: number;
  memo?: string;
}

export interface GiveBackRequest {
  accountId: string;
  ref: string;
  key: string;
  /** The key of the take-back this reverses. */
  reverses: string;
  memo?: string;
}

export type TakeBackResult =
  | {
      ok: true;
      /** Tokens this moved: taken back (> 0), given back (< 0), or none. */
      moved: number;
      /** Of a take-back: how much left the balance, and how much became debt. */
      fromBalance: number;
      toDebt: number;
      /** The account right after it (a duplicate: as it is now). */
      balance: number;
      debt: number;
      updatedAt: string;
      duplicate: boolean;
    }
  | {
      ok: false;
      code: "credit_not_found";
      message: string;
      balance: number;
      debt: number;
      updatedAt: string;
    };

type Takeback = {
  key: string;
  ref: string;
  kind: "take" | "give";
  target: number;
  amount: number;
  from_balance: number;
  to_debt: number;
  reverses: string | null;
  reversed: number;
};

/** What a refused hold says while the account owes tokens. */
export const debtMessage = (debt: number) =>
  `Your account owes ${debt} tokens after a refund; buy tokens to settle it.`;

export class AccountDebt {
  readonly #sql: SqlStorage;

  constructor(
    storage: DurableObjectStorage,
    private readonly ledger: Ledger,
    private readonly mirror: DebtMirror,
  ) {
    this.#sql = storage.sql;
    // One row per take-back or give-back key. `amount` is signed (+ taken, - given back, 0
    // nothing), so what a credit has had taken back is the sum of its rows.
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS takebacks (
      key TEXT PRIMARY KEY,
      ref TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('take', 'give')),
      target INTEGER NOT NULL,
      amount INTEGER NOT NULL,
      from_balance INTEGER NOT NULL DEFAULT 0,
      to_debt INTEGER NOT NULL DEFAULT 0,
      reverses TEXT,
      reversed INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    )`);
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS takebacks_by_ref ON takebacks (ref)`);
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS takebacks_by_reverses ON takebacks (reverses)`);
  }

  /** Call inside a transaction. */
  take(req: TakeBackRequest): TakeBackResult {
    const prior = this.#record(req.key);
    if (prior) return this.#answer(prior, true);
    const credit = this.ledger.byKey(req.ref);
    if (!credit || credit.type !== "credit") return this.#notFound();
    this.#learnId(req.accountId);
    // A give-back that came first (a dispute won before its opening arrived) cancels this one.
    const cancelled = this.#sql
      .exec(`SELECT 1 FROM takebacks WHERE reverses = ?`, req.key)
      .toArray().length;
    const target =
      req.part >= req.whole
        ? credit.amount
        : Number((BigInt(credit.amount) * BigInt(req.part)) / BigInt(req.whole));
    const amount = cancelled ? 0 : Math.max(0, target - this.#taken(req.ref));
    let fromBalance = 0;
    let toDebt = 0;
    if (amount > 0) {
      const meta = this.ledger.meta();
      fromBalance = Math.min(amount, meta.balance - meta.held);
      toDebt = amount - fromBalance;
      const row = this.ledger.write(
        meta,
        { type: "clawback", amount, key: req.key, memo: req.memo, ref: req.ref },
        meta.balance - fromBalance,
        meta.held,
        meta.debt + toDebt,
      );
      if (toDebt > 0) this.#owe(row);
    }
    const rec: Takeback = {
      key: req.key,
      ref: req.ref,
      kind: "take",
      target,
      amount,
      from_balance: fromBalance,
      to_debt: toDebt,
      reverses: null,
      reversed: cancelled ? 1 : 0,
    };
    this.#insert(rec);
    return this.#answer(rec, false);
  }

  /** Call inside a transaction. */
  give(req: GiveBackRequest): TakeBackResult {
    const prior = this.#record(req.key);
    if (prior) return this.#answer(prior, true);
    if (!this.ledger.byKey(req.ref)) return this.#notFound();
    this.#learnId(req.accountId);
    const of = this.#record(req.reverses);
    let amount = 0;
    if (of && of.kind === "take" && !of.reversed) {
      const before = this.#taken(req.ref);
      this.#sql.exec(`UPDATE takebacks SET reversed = 1 WHERE key = ?`, of.key);
      const still = this.#sql
        .exec<{ t: number | null }>(
          `SELECT MAX(target) AS t FROM takebacks WHERE ref = ? AND kind = 'take' AND reversed = 0`,
          req.ref,
        )
        .one().t;
      amount = Math.max(0, before - (still ?? 0));
    }
    if (amount > 0) {
      const meta = this.ledger.meta();
      this.ledger.write(
        meta,
        { type: "credit", amount, key: req.key, memo: req.memo, ref: req.ref },
        meta.balance + amount,
        meta.held,
      );
      this.repay(`${req.key}#repay`, req.memo);
    }
    const rec: Takeback = {
      key: req.key,
      ref: req.ref,
      kind: "give",
      target: 0,
      amount: -amount,
      from_balance: 0,
      to_debt: 0,
      reverses: req.reverses,
      reversed: 0,
    };
    this.#insert(rec);
    return this.#answer(rec, false);
  }

  /**
   * Pays the debt from the available balance, as far as it goes (after a credit, a give-back,
   * a voided hold). Call inside the transaction that added the tokens. Returns its row, if any.
   */
  repay(key: string, source?: string): TxRow | null {
    const meta = this.ledger.meta();
    const pay = Math.min(meta.debt, meta.balance - meta.held);
    if (pay <= 0) return null;
    const row = this.ledger.write(
      meta,
      {
        type: "repay",
        amount: pay,
        key,
        memo: (source ? `debt after a refund paid by ${source}` : "debt after a refund paid").slice(
          0,
          200,
        ),
      },
      meta.balance - pay,
      meta.held,
      meta.debt - pay,
    );
    this.#owe(row);
    return row;
  }

  /** The D1 copy of the debt must follow this row. */
  #owe(row: TxRow) {
    const id = this.ledger.meta().account_id;
    if (id) this.mirror.note(id, row.debt_after, row.created_at);
  }

  #learnId(accountId: string) {
    this.#sql.exec(
      `UPDATE account_meta SET account_id = ? WHERE id = 1 AND account_id IS NULL`,
      accountId,
    );
  }

  #taken(ref: string): number {
    return this.#sql
      .exec<{ n: number }>(`SELECT COALESCE(SUM(amount), 0) AS n FROM takebacks WHERE ref = ?`, ref)
      .one().n;
  }

  #record(key: string): Takeback | undefined {
    return this.#sql.exec<Takeback>(`SELECT * FROM takebacks WHERE key = ?`, key).toArray()[0];
  }

  #insert(r: Takeback) {
    this.#sql.exec(
      `INSERT INTO takebacks (key, ref, kind, target, amount, from_balance, to_debt, reverses, reversed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.key,
      r.ref,
      r.kind,
      r.target,
      r.amount,
      r.from_balance,
      r.to_debt,
      r.reverses,
      r.reversed,
      Date.now(),
    );
  }

  #answer(r: Takeback, duplicate: boolean): TakeBackResult {
    const meta = this.ledger.meta();
    return {
      ok: true,
      moved: r.amount,
      fromBalance: r.from_balance,
      toDebt: r.to_debt,
      balance: meta.balance - meta.held,
      debt: meta.debt,
      updatedAt: iso(meta.updated_at),
      duplicate,
    };
  }

  #notFound(): TakeBackResult {
    const meta = this.ledger.meta();
    return {
      ok: false,
      code: "credit_not_found",
      message: "No credit with that key on this account.",
      balance: meta.balance - meta.held,
      debt: meta.debt,
      updatedAt: iso(meta.updated_at),
    };
  }
}

/**
 * The TokenAccount's outbox of purchase rows to settle in D1 (`purchase_settles`): a
 * purchase's hold ended here (durable/token-account.ts `endPurchase`, or its alarm), and the
 * D1 row must follow even if the request that ran the purchase died.
 *
 * Invariants:
 * - A row is written in the same transaction as the hold's end, so neither exists without
 *   the other; it is deleted once D1 holds the outcome (settlePurchase moves a row out of
 *   `held` once, so settling twice changes nothing).
 * - One drain at a time: a purchase ending while one runs asks for one more pass, so a burst
 *   of a thousand purchases is a few passes, not a thousand drains each reading every row.
 *   What fails stays, and the account's alarm tries again (PURCHASE_RETRY_MS).
 */
import { SingleFlight } from "./single-flight";
import type { Env } from "../workers/env";
import {
  settlePurchase,
  type PurchaseOutcome,
} from "../workers/merch-service/token-shop/purchase-end";

export class PurchaseSettles {
  readonly #flight = new SingleFlight(
    () => this.#once(),
    () => this.rearm(),
  );

  constructor(
    private readonly sql: SqlStorage,
    private readonly env: Env,
    /** Sets the account's alarm (for the retry of whatever is left). */
    private readonly rearm: () => void,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS purchase_settles (purchase_id TEXT PRIMARY KEY, status TEXT NOT NULL CHECK (status IN ('committed', 'voided')))`,
    );
  }

  /** Owes D1 this purchase's outcome (call it inside the hold's ending transaction). */
  add(purchaseId: string, status: PurchaseOutcome) {
    this.sql.exec(
      `INSERT OR IGNORE INTO purchase_settles (purchase_id, status) VALUES (?, ?)`,
      purchaseId,
      status,
    );
  }

  pending(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM purchase_settles`).one().n;
  }

  drain(): Promise<void> {
    return this.#flight.run();
  }

  async #once(): Promise<void> {
    const rows = this.sql
      .exec<{ purchase_id: string; status: PurchaseOutcome }>(
        `SELECT purchase_id, status FROM purchase_settles`,
      )
      .toArray();
    for (const r of rows) {
      try {
        await settlePurchase(this.env, r.purchase_id, r.status);
        this.sql.exec(`DELETE FROM purchase_settles WHERE purchase_id = ?`, r.purchase_id);
      } catch (err) {
        console.error(`purchase ${r.purchase_id}: settling its row failed; retrying`, err);
      }
    }
  }
}

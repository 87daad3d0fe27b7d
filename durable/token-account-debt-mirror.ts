/**
 * The TokenAccount's outbox for the D1 copy of its debt (`token_accounts.debt`), which the
 * admin list of accounts in debt reads. The object stays the authority; D1 only lists.
 *
 * Invariants:
 * - The row here is written in the same transaction as the change of debt (one row: only the
 *   latest value matters), so a change never exists without its copy being owed.
 * - The D1 write carries the object's version (`updated_at`) and applies only over an older
 *   one, so two drains, or a late retry, never put an older debt over a newer one.
 * - The row is deleted only if it still holds the version just written; a change in between
 *   stays owed. What fails stays too, and the account's alarm tries again.
 */
import { SingleFlight } from "./single-flight";
import { and, eq, lt } from "drizzle-orm";
import { db } from "../workers/db/client";
import { tokenAccounts } from "../workers/db/schema";
import type { Env } from "../workers/env";

type Pending = { account_id: string; debt: number; version: number };

export class DebtMirror {
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
    sql.exec(`CREATE TABLE IF NOT EXISTS debt_mirror (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      account_id TEXT NOT NULL,
      debt INTEGER NOT NULL,
      version INTEGER NOT NULL
    )`);
  }

  /** Owes D1 this debt (call it inside the transaction that changed it). */
  note(accountId: string, debt: number, version: number) {
    this.sql.exec(
      `INSERT OR REPLACE INTO debt_mirror (id, account_id, debt, version) VALUES (1, ?, ?, ?)`,
      accountId,
      debt,
      version,
    );
  }

  pending(): boolean {
    return this.sql.exec(`SELECT 1 FROM debt_mirror`).toArray().length > 0;
  }

  /** Writes the owed copy to D1; one pass at a time, a change meanwhile asks for one more. */
  drain(): Promise<void> {
    return this.#flight.run();
  }

  async #once(): Promise<void> {
    const row = this.sql
      .exec<Pending>(`SELECT account_id, debt, version FROM debt_mirror`)
      .toArray()[0];
    if (!row) return;
    try {
      await db(this.env)
        .update(tokenAccounts)
        .set({ debt: row.debt, debtVersion: row.version, updatedAt: Date.now() })
        .where(
          and(eq(tokenAccounts.id, row.account_id), lt(tokenAccounts.debtVersion, row.version)),
        )
        .run();
      this.sql.exec(`DELETE FROM debt_mirror WHERE version = ?`, row.version);
    } catch (err) {
      console.error(`token account ${row.account_id}: mirroring its debt failed; retrying`, err);
    }
  }
}

/**
 * The TokenAccount's ledger in the object's own SQLite (durable/token-account.ts is the
 * object; token-account-debt.ts takes refunded tokens back through it). Here: the tables,
 * their upgrade for objects made by older code, and the one write that puts a ledger row and
 * the account's totals down together.
 *
 * - `account_meta`, one row: `balance` (settled: credits - commits - clawbacks - repayments),
 *   `held` (open holds), `debt` (tokens a refund took back that the balance could not cover),
 *   `updated_at` (the balance's version, strictly increasing), `status`, and `account_id` (the
 *   D1 id, learnt from the first take-back: the debt's D1 mirror is keyed by it). CHECKs keep
 *   `balance >= 0`, `debt >= 0` and `held <= balance`, so the available balance
 *   (`balance - held`) cannot go below zero whatever a caller computes.
 * - `ledger`: one row per transaction, its idempotency key unique, with the available
 *   balance and the debt right after it (`available_after`, `debt_after`), so a retry gets
 *   the first answer back and the history explains every change.
 *
 * Nothing here opens a transaction: every caller runs inside `transactionSync`.
 */

export const ACCOUNT_STATUSES = ["active", "disabled"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
/**
 * The spec's four (seed 000) and two of ours: `clawback` (a refund or dispute took tokens
 * back) and `repay` (tokens that arrived while the account owed some went to the debt).
 */
export const TRANSACTION_TYPES = [
  "credit",
  "hold",
  "commit",
  "voided",
  "clawback",
  "repay",
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type HoldStatus = "open" | "committed" | "voided";

/** The purchase a hold belongs to: the room that decides whether it was delivered. */
export interface PurchaseRef {
  purchaseId: string;
  roomUuid: string;
}

export interface LedgerEntry {
  id: string;
  type: TransactionType;
  amount: number;
  holdId: string | null;
  holdStatus: HoldStatus | null;
  memo: string | null;
  /** The available balance right after it. */
  balance: number;
  /** What the account owed right after it (0 unless a refund took back spent tokens). */
  debt: number;
  createdAt: string;
}

export type MetaRow = {
  balance: number;
  held: number;
  debt: number;
  updated_at: number;
  status: AccountStatus;
  account_id: string | null;
};
export type TxRow = {
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
  /** On a clawback, and on a credit that gave tokens back: the credit it is about. */
  ref: string | null;
  debt_after: number;
};

export interface LedgerWrite {
  type: TransactionType;
  amount: number;
  key: string;
  memo?: string;
  holdId?: string;
  expiresAt?: number;
  purchase?: PurchaseRef;
  ref?: string;
}

const MAX_MEMO_LENGTH = 200;
export const MAX_LIST = 100;

const LEDGER_COLUMNS = `
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('credit', 'hold', 'commit', 'voided', 'clawback', 'repay')),
  amount INTEGER NOT NULL CHECK (amount > 0),
  idempotency_key TEXT NOT NULL UNIQUE,
  hold_id TEXT UNIQUE,
  hold_status TEXT CHECK (hold_status IN ('open', 'committed', 'voided')),
  expires_at INTEGER,
  memo TEXT,
  available_after INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  purchase TEXT,
  ref TEXT,
  debt_after INTEGER NOT NULL DEFAULT 0`;
/** The columns every ledger ever had, copied as they are when an old table is rebuilt. */
const OLD_COLUMNS =
  "id, type, amount, idempotency_key, hold_id, hold_status, expires_at, memo, available_after, created_at, purchase";

export const iso = (ms: number) => new Date(ms).toISOString();

export class Ledger {
  readonly #sql: SqlStorage;

  /** Makes or upgrades the tables; call inside the object's `blockConcurrencyWhile`. */
  constructor(storage: DurableObjectStorage) {
    this.#sql = storage.sql;
    storage.transactionSync(() => this.#schema());
  }

  #schema() {
    const sql = this.#sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS account_meta (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      balance INTEGER NOT NULL CHECK (balance >= 0),
      held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance),
      updated_at INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active', 'disabled'))
    )`);
    // Added with refunds: an older object gets the columns (no debt, id not known yet).
    const metaCols = sql.exec<{ name: string }>(`PRAGMA table_info(account_meta)`).toArray();
    if (!metaCols.some((c) => c.name === "debt"))
      sql.exec(
        `ALTER TABLE account_meta ADD COLUMN debt INTEGER NOT NULL DEFAULT 0 CHECK (debt >= 0)`,
      );
    if (!metaCols.some((c) => c.name === "account_id"))
      sql.exec(`ALTER TABLE account_meta ADD COLUMN account_id TEXT`);
    sql.exec(
      `INSERT OR IGNORE INTO account_meta (id, balance, held, updated_at, status) VALUES (1, 0, 0, ?, 'active')`,
      Date.now(),
    );

    const table = sql
      .exec<{ sql: string }>(
        `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'ledger'`,
      )
      .toArray()[0];
    if (!table) sql.exec(`CREATE TABLE ledger (${LEDGER_COLUMNS})`);
    else if (!table.sql.includes("'clawback'")) {
      // A ledger from before refunds: its CHECK on `type` knows four types, and SQLite cannot
      // change a CHECK in place, so the table is rebuilt with the same rows (one transaction:
      // the caller's). Purchase holds came earlier; an object older still lacks that column.
      const cols = sql.exec<{ name: string }>(`PRAGMA table_info(ledger)`).toArray();
      if (!cols.some((c) => c.name === "purchase"))
        sql.exec(`ALTER TABLE ledger ADD COLUMN purchase TEXT`);
      sql.exec(`CREATE TABLE ledger_v2 (${LEDGER_COLUMNS})`);
      sql.exec(`INSERT INTO ledger_v2 (${OLD_COLUMNS}) SELECT ${OLD_COLUMNS} FROM ledger`);
      sql.exec(`DROP TABLE ledger`);
      sql.exec(`ALTER TABLE ledger_v2 RENAME TO ledger`);
    }
    sql.exec(
      `CREATE INDEX IF NOT EXISTS ledger_open_holds ON ledger (expires_at) WHERE hold_status = 'open'`,
    );
    sql.exec(`CREATE INDEX IF NOT EXISTS ledger_by_time ON ledger (created_at)`);
    sql.exec(`CREATE INDEX IF NOT EXISTS ledger_by_type ON ledger (type, created_at)`);
  }

  meta(): MetaRow {
    return this.#sql
      .exec<MetaRow>(
        `SELECT balance, held, debt, updated_at, status, account_id FROM account_meta WHERE id = 1`,
      )
      .one();
  }

  byKey(key: string): TxRow | undefined {
    return this.#sql
      .exec<TxRow>(`SELECT * FROM ledger WHERE idempotency_key = ?`, key)
      .toArray()[0];
  }

  byId(id: string): TxRow | undefined {
    return this.#sql.exec<TxRow>(`SELECT * FROM ledger WHERE id = ?`, id).toArray()[0];
  }

  /**
   * Writes one ledger row and the totals it leads to (`debt` unchanged unless given).
   * `updated_at` is max(now, last + 1), so every write is a new version.
   */
  write(meta: MetaRow, tx: LedgerWrite, balance: number, held: number, debt = meta.debt): TxRow {
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
      ref: tx.ref ?? null,
      debt_after: debt,
    };
    this.#sql.exec(
      `INSERT INTO ledger (id, type, amount, idempotency_key, hold_id, hold_status, expires_at, memo, available_after, created_at, purchase, ref, debt_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      row.ref,
      row.debt_after,
    );
    this.#sql.exec(
      `UPDATE account_meta SET balance = ?, held = ?, debt = ?, updated_at = ? WHERE id = 1`,
      balance,
      held,
      debt,
      now,
    );
    return row;
  }

  /** The ledger (or its rows of `types`), newest first, for a history page. */
  list(limit: number, offset: number, types?: readonly TransactionType[]) {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST)
      throw new Error(`limit must be an integer from 1 to ${MAX_LIST}.`);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new Error("offset must be a non-negative integer.");
    if (types?.some((t) => !TRANSACTION_TYPES.includes(t)))
      throw new Error(`types must be among ${TRANSACTION_TYPES.join(", ")}.`);
    // The types are checked against the fixed list above, so they are safe to inline.
    const where = types?.length ? `WHERE type IN (${types.map((t) => `'${t}'`).join(", ")})` : "";
    const rows = this.#sql
      .exec<TxRow>(
        `SELECT * FROM ledger ${where} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
        limit,
        offset,
      )
      .toArray();
    const total = this.#sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ledger ${where}`)
      .one().n;
    return { total, data: rows.map(entryOf) };
  }
}

export const entryOf = (r: TxRow): LedgerEntry => ({
  id: r.id,
  type: r.type,
  amount: r.amount,
  holdId: r.type === "hold" ? r.id : r.hold_id,
  holdStatus: r.hold_status,
  memo: r.memo,
  balance: r.available_after,
  debt: r.debt_after,
  createdAt: iso(r.created_at),
});

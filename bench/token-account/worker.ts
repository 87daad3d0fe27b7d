/**
 * The token bench's worker: the same hold done three ways, driven over HTTP by
 * bench/tokens.bench.mjs.
 * - `do`: `TokenAccount.hold(1, key)` on the real object (durable/token-account.ts): one
 *   RPC, checked and written in one synchronous SQLite transaction inside the object
 *   (idempotency-key lookup, status and balance check, a ledger row, the balance, the
 *   expiry alarm).
 * - `d1`: the correct way to do it on D1, the same work in one batch (one transaction):
 *   a conditional `UPDATE ... SET available = available - 1, held = held + 1 WHERE id = ?
 *   AND status = 'active' AND available >= 1 AND <key not used>` (`meta.changes` says
 *   whether the hold was granted), then the ledger row, inserted only when that update
 *   changed a row (`changes()`, the statement before it in the same batch). No interleaving
 *   can overdraw: the check and the write are one statement. (No alarm: D1 has none; an
 *   expiry would need a cron sweeping the open-holds index.)
 * - `d1-unsafe`: the read-modify-write DESIGN.md forbids, kept to show why: SELECT
 *   balance; if >= 1, UPDATE to balance - 1. Concurrent requests interleave between the
 *   two statements, so two can read the same balance and both "succeed": an overdraft.
 * GET /setup?mode&run&accounts&balance, /ops?mode&run&accounts&from&count&conc,
 * /final?mode&run&accounts.
 */
import { TokenAccount } from "../../durable/token-account";

export { TokenAccount };

interface BenchEnv {
  TokenAccount: DurableObjectNamespace<TokenAccount>;
  DB: D1Database;
}

/** The object's schema on D1: the available balance on the account row, as the update needs. */
const D1_TABLES = [
  `CREATE TABLE IF NOT EXISTS accounts (
    id TEXT PRIMARY KEY,
    available INTEGER NOT NULL CHECK (available >= 0),
    held INTEGER NOT NULL CHECK (held >= 0),
    updated_at INTEGER NOT NULL,
    status TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ledger (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    type TEXT NOT NULL,
    amount INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL,
    hold_status TEXT,
    expires_at INTEGER,
    available_after INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, idempotency_key)
  )`,
  `CREATE INDEX IF NOT EXISTS ledger_open_holds ON ledger (expires_at) WHERE hold_status = 'open'`,
];

/** Five minutes, as the object's holds. */
const HOLD_TTL_MS = 5 * 60_000;

/**
 * A hold on D1 done right: one batch, so one transaction; the balance check is inside the
 * UPDATE, so concurrent holds serialise on the row and none can overdraw. A key already
 * used changes nothing (the object answers such a retry with its first answer).
 */
async function d1Hold(db: D1Database, account: string, amount: number, key: string) {
  const now = Date.now();
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE accounts SET available = available - ?1, held = held + ?1, updated_at = ?2
         WHERE id = ?3 AND status = 'active' AND available >= ?1
           AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = ?3 AND idempotency_key = ?4)`,
      )
      .bind(amount, now, account, key),
    db
      .prepare(
        `INSERT INTO ledger (id, account_id, type, amount, idempotency_key, hold_status, expires_at, available_after, created_at)
         SELECT ?1, ?2, 'hold', ?3, ?4, 'open', ?5, available, ?6 FROM accounts
         WHERE id = ?2 AND changes() = 1`,
      )
      .bind(crypto.randomUUID(), account, amount, key, now + HOLD_TTL_MS, now),
  ]);
  return update.meta.changes === 1;
}

const ids = (run: string, n: number) => Array.from({ length: n }, (_, i) => `${run}-${i}`);

async function pool(count: number, conc: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(conc, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

export default {
  async fetch(req: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(req.url);
    const q = (k: string) => url.searchParams.get(k) ?? "";
    const n = (k: string) => Number(url.searchParams.get(k) ?? 0);
    const mode = q("mode");
    const accounts = ids(q("run"), n("accounts"));
    if (url.pathname === "/ready") return new Response("ok");
    if (url.pathname === "/setup") {
      if (mode === "do")
        await Promise.all(
          accounts.map((id) => env.TokenAccount.getByName(id).credit(n("balance"), "seed")),
        );
      else if (mode === "d1") {
        // The object's tables, keyed by account: available balance, held, a ledger with
        // unique keys per account and the open-holds index the object keeps.
        for (const ddl of D1_TABLES) await env.DB.prepare(ddl).run();
        await env.DB.batch(
          accounts.map((id) =>
            env.DB.prepare(
              "INSERT OR REPLACE INTO accounts (id, available, held, updated_at, status) VALUES (?, ?, 0, ?, 'active')",
            ).bind(id, n("balance"), Date.now()),
          ),
        );
      } else {
        await env.DB.exec(
          "CREATE TABLE IF NOT EXISTS balances (id TEXT PRIMARY KEY, balance INTEGER NOT NULL)",
        );
        await env.DB.batch(
          accounts.map((id) =>
            env.DB.prepare("INSERT OR REPLACE INTO balances (id, balance) VALUES (?, ?)").bind(
              id,
              n("balance"),
            ),
          ),
        );
      }
      return Response.json({ accounts: accounts.length });
    }
    if (url.pathname === "/ops") {
      const from = n("from");
      const okBy: Record<string, number> = {};
      let refused = 0;
      await pool(n("count"), n("conc") || 25, async (k) => {
        const i = from + k;
        const id = accounts[i % accounts.length];
        let ok = false;
        if (mode === "do") {
          ok = (await env.TokenAccount.getByName(id).hold(1, `${q("run")}-op-${i}`)).ok;
        } else if (mode === "d1") {
          ok = await d1Hold(env.DB, id, 1, `${q("run")}-op-${i}`);
        } else {
          const row = await env.DB.prepare("SELECT balance FROM balances WHERE id = ?")
            .bind(id)
            .first<{ balance: number }>();
          if (row && row.balance >= 1) {
            await env.DB.prepare("UPDATE balances SET balance = ? WHERE id = ?")
              .bind(row.balance - 1, id)
              .run();
            ok = true;
          }
        }
        if (ok) okBy[id] = (okBy[id] ?? 0) + 1;
        else refused++;
      });
      return Response.json({ okBy, refused });
    }
    if (url.pathname === "/final") {
      // Balances, and the hold rows each design wrote (a granted hold has exactly one).
      if (mode === "do") {
        const views = await Promise.all(
          accounts.map(async (id) => {
            const stub = env.TokenAccount.getByName(id);
            return [(await stub.getAccount()).balance, (await stub.transactions(1)).total - 1];
          }),
        );
        return Response.json({
          balances: views.map((v) => v[0]),
          holdRows: views.reduce((a, v) => a + v[1], 0),
        });
      }
      if (mode === "d1") {
        const [balances, rows] = await env.DB.batch([
          env.DB.prepare(
            `SELECT available AS balance FROM accounts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
          ).bind(JSON.stringify(accounts)),
          env.DB.prepare(
            `SELECT COUNT(*) AS n FROM ledger WHERE type = 'hold' AND account_id IN (SELECT value FROM json_each(?))`,
          ).bind(JSON.stringify(accounts)),
        ]);
        return Response.json({
          balances: (balances.results as { balance: number }[]).map((r) => r.balance),
          holdRows: (rows.results[0] as { n: number }).n,
        });
      }
      const balances = (
        await env.DB.batch(
          accounts.map((id) =>
            env.DB.prepare("SELECT balance FROM balances WHERE id = ?").bind(id),
          ),
        )
      ).map((r) => (r.results[0] as { balance: number }).balance);
      return Response.json({ balances, holdRows: null });
    }
    return new Response("not found", { status: 404 });
  },
};

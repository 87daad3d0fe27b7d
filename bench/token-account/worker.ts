/**
 * The token bench's worker: the same hold done two ways, driven over HTTP by
 * bench/tokens.bench.mjs.
 * - `do`: `TokenAccount.hold(1, key)` on the real object (durable/token-account.ts): one
 *   RPC, checked and written in one synchronous SQLite transaction inside the object.
 * - `d1`: the read-modify-write DESIGN.md forbids: SELECT balance; if >= 1, UPDATE to
 *   balance - 1. Concurrent requests interleave between the two statements, so two can
 *   read the same balance and both "succeed": an overdraft.
 * GET /setup?mode&run&accounts&balance, /ops?mode&run&accounts&from&count&conc,
 * /final?mode&run&accounts.
 */
import { TokenAccount } from "../../durable/token-account";

export { TokenAccount };

interface BenchEnv {
  TokenAccount: DurableObjectNamespace<TokenAccount>;
  DB: D1Database;
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
      else {
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
      const balances =
        mode === "do"
          ? await Promise.all(
              accounts.map(
                async (id) => (await env.TokenAccount.getByName(id).getAccount()).balance,
              ),
            )
          : (
              await env.DB.batch(
                accounts.map((id) =>
                  env.DB.prepare("SELECT balance FROM balances WHERE id = ?").bind(id),
                ),
              )
            ).map((r) => (r.results[0] as { balance: number }).balance);
      return Response.json({ balances });
    }
    return new Response("not found", { status: 404 });
  },
};

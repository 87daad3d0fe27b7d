// The Leaderboard durable object at season scale (issues 6 and 12), beside D1 on the same
// data in the same run. Both live in one Miniflare (the workerd + SQLite that `wrangler dev`
// runs) behind one small worker, so each timed call takes the same path: Node -> worker ->
// the object (RPC) or D1. Run once per data shape, each in a Miniflare of its own:
//   - ties: user i has balance (i * 7919) % 100003 (~100,000 distinct balances, ~10 users
//     on each at 1,000,000 users: points cluster);
//   - distinct: (i * 7919) % 1000003, every user on a balance of their own (the worst case
//     for counting per balance).
// Measured for each shape, BENCH_ROWS users (default 1,000,000):
//   - load: bulk inserts into the board (the bench-only `benchLoad` RPC, refused outside
//     development) and into D1 (`bench_points`, an index on (balance DESC, user_uuid), and
//     the board's own count tables built by the board's own SQL);
//   - top 100: `top(100, 0)` vs `ORDER BY balance DESC, user_uuid LIMIT 100`;
//   - one user's rank, for users drawn uniformly (ranks spread over the whole board):
//       board        `rankOf(u)`: u's balance, then the bucketed count (leaderboard-ranks.ts);
//       D1 same SQL  the very same statement (`usersAboveSql`) on the same tables in D1, so
//                    board / D1 compares the stores, not the algorithms;
//       D1 index     `1 + COUNT(*) WHERE balance > u's` over the index (what D1 alone does);
//       D1 per-balance  `SUM(n) FROM balance_counts WHERE balance > u's` (the board's
//                    algorithm before issue 12: cost grows with the distinct balances above);
//   - a bare round trip to each (a no-op RPC, `select 1`), so the store's own share shows;
//   - on the ties board only: points applied per second, `addPointsBatch` with 100 events
//     a call (the consumer's shape) on existing users and on new users (a new user adds
//     to every bucket level), and `addPoints` one event a call;
//   - on the ties board only: hidden users (deactivated accounts, leaderboard-hidden.ts):
//     `top(100, 0)`, `top(100, 9900)` and `rankOf` before and after hiding the 1,000 best
//     users (the worst place for them: every page walks past them), and `setHidden` per call.
// Reads alternate which side goes first. p50/p95 in ms; ratios are D1 / board at p50.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { workerCall } from "./lib/miniflare-call.mjs";
import { rng } from "../scripts/rng.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const N = Number(process.env.BENCH_N ?? 200);
const SHAPES = (process.env.BENCH_SHAPES ?? "ties,distinct").split(",");
const CHUNK = 100_000;

// The board class from its TypeScript source (never a copy), the rank SQL it runs and its
// bench balances (so D1 gets the same users and runs the same statements), and a worker
// that calls either.
const ENTRY = `
import { BENCH_BALANCE, Leaderboard } from "../durable/leaderboard.ts";
import { RANK_TABLES_SQL, rebuildAllSql, usersAboveSql } from "../durable/leaderboard-ranks.ts";
export { Leaderboard };
const json = (v) => Response.json(v ?? null);
const RANK = "SELECT 1 + above AS rank FROM (" +
  usersAboveSql("(SELECT balance FROM bench_points WHERE user_uuid = ?1)") + ")";
export default {
  async fetch(req, env) {
    const b = await req.json();
    const board = env.LB.getByName("bench");
    switch (b.op) {
      case "load": return json(await board.benchLoad(b.from, b.count, b.shape));
      case "noop": return json(await board.count());
      case "top": return json(await board.top(100, 0));
      case "rank": return json(await board.rankOf(b.user));
      case "batch": return json(await board.addPointsBatch(b.events));
      case "one": return json(await board.addPoints(b.eventId, b.user, b.points, Date.now()));
      case "topAt": return json(await board.top(b.take, b.skip));
      case "hide": return json(await board.setHidden(b.user, b.hidden));
      case "sql": { const r = await env.DB.prepare(b.sql).bind(...(b.params ?? [])).all(); return json(r.results); }
      case "d1Load": {
        const sql = "WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?) " +
          "INSERT OR IGNORE INTO bench_points SELECT printf('bench-%07d', i), " + BENCH_BALANCE[b.shape] + " FROM s";
        await env.DB.prepare(sql).bind(b.from, b.to).run();
        return json(true);
      }
      case "d1Rank": return json(await env.DB.prepare(RANK).bind(b.user).first("rank"));
      case "d1Counts": {
        for (const s of [...RANK_TABLES_SQL, ...rebuildAllSql("bench_points")]) await env.DB.prepare(s).run();
        return json(true);
      }
    }
    return new Response("bad op", { status: 400 });
  },
};`;

async function bundle() {
  const out = await build({
    stdin: {
      contents: ENTRY,
      resolveDir: `${ROOT}bench`,
      loader: "js",
      sourcefile: "leaderboard-bench-worker.js",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    external: ["cloudflare:workers"],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v) => Math.round(v * 1000) / 1000;
  return {
    p50: r(pct(s, 50)),
    p95: r(pct(s, 95)),
    mean: r(s.reduce((a, b) => a + b, 0) / s.length),
  };
}
const r2 = (v) => Math.round(v * 100) / 100;
const userOf = (i) => `bench-${String(i).padStart(7, "0")}`;

/** One data shape, in a Miniflare of its own (so neither shape's data slows the other). */
async function measure(shape, script, log) {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-26",
    durableObjects: { LB: { className: "Leaderboard", useSQLite: true } },
    d1Databases: { DB: `bench-leaderboard-${shape}` },
    bindings: { ENVIRONMENT: "development" },
  });
  try {
    const call = workerCall(mf);
    const timed = async (body) => {
      const t = process.hrtime.bigint();
      const r = await call(body);
      return { ms: Number(process.hrtime.bigint() - t) / 1e6, r };
    };

    // ---- load -------------------------------------------------------------------------
    // A board copies D1's deactivated accounts when it first starts (leaderboard-hidden.ts).
    await call({
      op: "sql",
      sql: "CREATE TABLE IF NOT EXISTS users (uuid TEXT PRIMARY KEY, deactivated INTEGER NOT NULL DEFAULT 0)",
    });
    let t0 = performance.now();
    for (let from = 0; from < ROWS; from += CHUNK)
      await call({ op: "load", from, count: Math.min(CHUNK, ROWS - from), shape });
    const boardLoadS = (performance.now() - t0) / 1000;
    const boardRows = await call({ op: "noop" });
    log(`board: ${boardRows.toLocaleString("en")} users loaded in ${boardLoadS.toFixed(1)} s`);

    await call({
      op: "sql",
      sql: "CREATE TABLE IF NOT EXISTS bench_points (user_uuid TEXT PRIMARY KEY, balance INTEGER NOT NULL)",
    });
    t0 = performance.now();
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK) - 1;
      await call({ op: "d1Load", from, to, shape });
    }
    // The index after the rows, as a bulk load would; the board keeps its index live.
    await call({
      op: "sql",
      sql: "CREATE INDEX IF NOT EXISTS bench_points_rank ON bench_points (balance DESC, user_uuid)",
    });
    await call({ op: "d1Counts" });
    const d1LoadS = (performance.now() - t0) / 1000;
    const d1Rows = (await call({ op: "sql", sql: "SELECT COUNT(*) AS n FROM bench_points" }))[0].n;
    const distinct = (await call({ op: "sql", sql: "SELECT COUNT(*) AS n FROM balance_counts" }))[0]
      .n;
    log(
      `D1: ${d1Rows.toLocaleString("en")} rows (${distinct.toLocaleString("en")} distinct balances) loaded, indexed and counted in ${d1LoadS.toFixed(1)} s`,
    );

    // ---- reads --------------------------------------------------------------------------
    const rand = rng(20261121);
    const d1Top = {
      op: "sql",
      sql: "SELECT user_uuid, balance FROM bench_points ORDER BY balance DESC, user_uuid LIMIT 100",
    };
    const d1Index = (user) => ({
      op: "sql",
      sql: "SELECT 1 + COUNT(*) AS rank FROM bench_points WHERE balance > (SELECT balance FROM bench_points WHERE user_uuid = ?)",
      params: [user],
    });
    const d1PerBalance = (user) => ({
      op: "sql",
      sql: "SELECT 1 + COALESCE(SUM(n), 0) AS rank FROM balance_counts WHERE balance > (SELECT balance FROM bench_points WHERE user_uuid = ?)",
      params: [user],
    });
    for (let i = 0; i < 10; i++) {
      await call({ op: "top" });
      await call(d1Top);
      await call({ op: "rank", user: userOf(i) });
      await call({ op: "d1Rank", user: userOf(i) });
    }
    const m = {
      boardTop: [],
      d1Top: [],
      boardRank: [],
      d1SameRank: [],
      d1IndexRank: [],
      d1PerBalanceRank: [],
      boardNoop: [],
      d1Noop: [],
    };
    let agree = 0;
    let sameTop = true;
    for (let i = 0; i < N; i++) {
      const u = userOf(Math.floor(rand() * ROWS));
      const ranks = {};
      const tops = {};
      for (const side of i % 2 === 0 ? ["board", "d1"] : ["d1", "board"]) {
        if (side === "board") {
          const top = await timed({ op: "top" });
          m.boardTop.push(top.ms);
          const rank = await timed({ op: "rank", user: u });
          m.boardRank.push(rank.ms);
          m.boardNoop.push((await timed({ op: "noop" })).ms);
          tops.board = top.r.map((r) => [r.userUuid, r.balance]);
          ranks.board = rank.r?.rank;
        } else {
          const top = await timed(d1Top);
          m.d1Top.push(top.ms);
          const same = await timed({ op: "d1Rank", user: u });
          m.d1SameRank.push(same.ms);
          const index = await timed(d1Index(u));
          m.d1IndexRank.push(index.ms);
          const perBalance = await timed(d1PerBalance(u));
          m.d1PerBalanceRank.push(perBalance.ms);
          m.d1Noop.push((await timed({ op: "sql", sql: "SELECT 1" })).ms);
          tops.d1 = top.r.map((r) => [r.user_uuid, r.balance]);
          ranks.d1 = [same.r, index.r[0].rank, perBalance.r[0].rank];
        }
      }
      if (i === 0) sameTop = JSON.stringify(tops.board) === JSON.stringify(tops.d1);
      if (ranks.d1.every((r) => r === ranks.board)) agree++;
    }
    log(
      `all sides agree: top 100 ${sameTop ? "identical" : "DIFFERENT"}; ranks equal (board, D1 same SQL, D1 index, D1 per-balance) for ${agree}/${N} users`,
    );

    const rank = {
      board: stats(m.boardRank),
      d1SameSql: stats(m.d1SameRank),
      d1Index: stats(m.d1IndexRank),
      d1PerBalance: stats(m.d1PerBalanceRank),
    };
    const out = {
      shape,
      rows: ROWS,
      distinctBalances: distinct,
      load: { boardSeconds: r2(boardLoadS), d1Seconds: r2(d1LoadS) },
      top100: {
        board: stats(m.boardTop),
        d1: stats(m.d1Top),
        ratioP50: r2(stats(m.d1Top).p50 / stats(m.boardTop).p50),
      },
      rank: {
        ...rank,
        ratioP50: {
          d1SameSql: r2(rank.d1SameSql.p50 / rank.board.p50),
          d1Index: r2(rank.d1Index.p50 / rank.board.p50),
          d1PerBalance: r2(rank.d1PerBalance.p50 / rank.board.p50),
        },
      },
      roundTrip: { board: stats(m.boardNoop), d1: stats(m.d1Noop) },
      checks: { sameTop100: sameTop, ranksEqual: `${agree}/${N}` },
    };

    // ---- writes (one shape is enough: a write's cost does not depend on the others) -----
    if (shape === "ties") {
      const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
      const batches = async (name, user, count = BATCHES) => {
        const t = performance.now();
        for (let b = 0; b < count; b++) {
          const events = Array.from({ length: 100 }, (_, k) => ({
            eventId: `${name}-${b}-${k}`,
            userUuid: user(b, k),
            points: 1 + (k % 3),
            occurredAt: Date.now(),
          }));
          await call({ op: "batch", events });
        }
        return Math.round((count * 100) / ((performance.now() - t) / 1000));
      };
      // Untimed: the first writes after a bulk load pay for pages the load left cold.
      await batches("warm", () => userOf(Math.floor(rand() * ROWS)), 20);
      const existing = await batches("w", () => userOf(Math.floor(rand() * ROWS)));
      const fresh = await batches("n", (b, k) => `new-${b}-${k}`);
      const ONES = Number(process.env.BENCH_ONES ?? 1000);
      t0 = performance.now();
      for (let k = 0; k < ONES; k++)
        await call({
          op: "one",
          eventId: `o-${k}`,
          user: userOf(Math.floor(rand() * ROWS)),
          points: 1,
        });
      const oneByOne = Math.round(ONES / ((performance.now() - t0) / 1000));
      out.pointsPerSecond = { batchOf100: existing, batchOf100NewUsers: fresh, oneByOne };

      // ---- hidden users: the same reads before and after hiding the 1,000 best ----------
      const reads = async () => {
        const r = { top: [], deep: [], rank: [] };
        for (let i = 0; i < N; i++) {
          r.top.push((await timed({ op: "topAt", take: 100, skip: 0 })).ms);
          r.deep.push((await timed({ op: "topAt", take: 100, skip: 9900 })).ms);
          r.rank.push((await timed({ op: "rank", user: userOf(Math.floor(rand() * ROWS)) })).ms);
        }
        return { top: stats(r.top), deep: stats(r.deep), rank: stats(r.rank) };
      };
      const best = await call({ op: "topAt", take: 1000, skip: 0 });
      const next = (await call({ op: "topAt", take: 1, skip: 1000 }))[0];
      const countBefore = await call({ op: "noop" });
      const before = await reads();
      const hideMs = [];
      for (const u of best)
        hideMs.push((await timed({ op: "hide", user: u.userUuid, hidden: true })).ms);
      const after = await reads();
      const first = (await call({ op: "topAt", take: 1, skip: 0 }))[0];
      out.hidden = {
        hiddenUsers: best.length,
        before,
        after,
        setHidden: stats(hideMs),
        ratioP50: {
          top: r2(after.top.p50 / before.top.p50),
          deep: r2(after.deep.p50 / before.deep.p50),
          rank: r2(after.rank.p50 / before.rank.p50),
        },
        checks: {
          countDropped: countBefore - (await call({ op: "noop" })),
          firstIsThe1001st: first.userUuid === next.userUuid && first.rank === 1,
        },
      };
    }
    return out;
  } finally {
    await mf.dispose();
  }
}

export default async function run({ log = console.log } = {}) {
  const script = await bundle();
  const shapes = {};
  for (const shape of SHAPES) {
    log(`-- ${shape} --`);
    shapes[shape] = await measure(shape, script, log);
  }
  log("");
  for (const s of Object.values(shapes)) {
    log(
      `| ${s.shape}: ${s.rows.toLocaleString("en")} users, ${s.distinctBalances.toLocaleString("en")} balances | p50 / p95 ms | D1 / board (p50) |`,
    );
    log("|---|---|---|");
    const row = (name, st, ratio) =>
      log(`| ${name} | ${st.p50} / ${st.p95} | ${ratio === undefined ? "" : `${ratio}x`} |`);
    row("top 100: board", s.top100.board);
    row("top 100: D1 (index)", s.top100.d1, s.top100.ratioP50);
    row("rank: board (buckets)", s.rank.board);
    row("rank: D1, same tables and SQL", s.rank.d1SameSql, s.rank.ratioP50.d1SameSql);
    row("rank: D1, COUNT(*) over the index", s.rank.d1Index, s.rank.ratioP50.d1Index);
    row("rank: D1, per-balance SUM (old)", s.rank.d1PerBalance, s.rank.ratioP50.d1PerBalance);
    row("bare round trip: board", s.roundTrip.board);
    row("bare round trip: D1", s.roundTrip.d1);
    log(
      `checks: top 100 ${s.checks.sameTop100 ? "identical" : "DIFFERENT"}, ranks equal ${s.checks.ranksEqual}; load: board ${s.load.boardSeconds} s, D1 ${s.load.d1Seconds} s`,
    );
    if (s.hidden) {
      const h = s.hidden;
      log(
        `hidden: ${h.hiddenUsers} best users hidden (setHidden p50 ${h.setHidden.p50} ms, p95 ${h.setHidden.p95} ms); after / before at p50: top 100 ${h.ratioP50.top}x (${h.before.top.p50} -> ${h.after.top.p50} ms), top 100 at 9,900 deep ${h.ratioP50.deep}x (${h.before.deep.p50} -> ${h.after.deep.p50} ms), rank ${h.ratioP50.rank}x; checks: count dropped by ${h.checks.countDropped}, first is the former 1,001st ranked 1: ${h.checks.firstIsThe1001st}`,
      );
    }
    if (s.pointsPerSecond)
      log(
        `points applied: ${s.pointsPerSecond.batchOf100.toLocaleString("en")}/s in batches of 100 (existing users), ${s.pointsPerSecond.batchOf100NewUsers.toLocaleString("en")}/s (new users), ${s.pointsPerSecond.oneByOne.toLocaleString("en")}/s one call each`,
      );
    log("");
  }
  return { rows: ROWS, n: N, shapes };
}

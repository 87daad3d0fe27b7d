// The Leaderboard durable object at season scale (issue 6), beside D1 on the same data in
// the same run. Both live in one Miniflare (the workerd + SQLite that `wrangler dev` runs)
// behind one small worker, so each timed call takes the same path: Node -> worker -> the
// object (RPC) or D1. Measured:
//   - load: 1,000,000 users (BENCH_ROWS) bulk-inserted into the board (the bench-only
//     `benchLoad` RPC, refused outside development) and into a D1 table with an index on
//     (balance DESC, user_uuid); user i has balance (i * 7919) % 100003 on both.
//   - top 100: `top(100, 0)` vs `ORDER BY balance DESC, user_uuid LIMIT 100`;
//   - one user's rank: `rankOf(u)` vs `SELECT COUNT(*) ... WHERE balance > (u's balance)`,
//     for users drawn uniformly (so ranks spread over the whole board);
//   - points applied per second: `addPointsBatch` with 100 events a call (the consumer's
//     shape) and `addPoints` one event a call, on existing users, each event new;
//   - a bare round trip to each (a no-op RPC, `select 1`), so the store's own share shows.
// Reads alternate which side goes first. p50/p95 in ms; ratio = D1 / board.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { rng } from "../scripts/rng.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const N = Number(process.env.BENCH_N ?? 200);
const CHUNK = 100_000;

// The board class from its TypeScript source (never a copy), plus a worker that calls it.
const ENTRY = `
import { Leaderboard } from "../durable/leaderboard.ts";
export { Leaderboard };
const json = (v) => Response.json(v ?? null);
export default {
  async fetch(req, env) {
    const b = await req.json();
    const board = env.LB.getByName("bench");
    switch (b.op) {
      case "load": return json(await board.benchLoad(b.from, b.count));
      case "noop": return json(await board.count());
      case "top": return json(await board.top(100, 0));
      case "rank": return json(await board.rankOf(b.user));
      case "batch": return json(await board.addPointsBatch(b.events));
      case "one": return json(await board.addPoints(b.eventId, b.user, b.points, Date.now()));
      case "sql": { const r = await env.DB.prepare(b.sql).bind(...(b.params ?? [])).all(); return json(r.results); }
      case "exec": { await env.DB.exec(b.sql); return json(true); }
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
const userOf = (i) => `bench-${String(i).padStart(7, "0")}`;

export default async function run({ log = console.log } = {}) {
  const mf = new Miniflare({
    modules: true,
    script: await bundle(),
    compatibilityDate: "2026-04-26",
    durableObjects: { LB: { className: "Leaderboard", useSQLite: true } },
    d1Databases: { DB: "bench-leaderboard" },
    bindings: { ENVIRONMENT: "development" },
  });
  try {
    const call = async (body) => {
      const res = await mf.dispatchFetch("http://bench/", {
        method: "POST",
        body: JSON.stringify(body),
      });
      if (!res.ok)
        throw new Error(`${body.op} failed (${res.status}): ${(await res.text()).slice(0, 300)}`);
      return res.json();
    };
    const timed = async (body) => {
      const t = process.hrtime.bigint();
      const r = await call(body);
      return { ms: Number(process.hrtime.bigint() - t) / 1e6, r };
    };

    // ---- load -------------------------------------------------------------------------
    let t0 = performance.now();
    for (let from = 0; from < ROWS; from += CHUNK)
      await call({ op: "load", from, count: Math.min(CHUNK, ROWS - from) });
    const boardLoadS = (performance.now() - t0) / 1000;
    const boardRows = await call({ op: "noop" });
    log(`board: ${boardRows.toLocaleString("en")} users loaded in ${boardLoadS.toFixed(1)} s`);

    await call({
      op: "exec",
      sql: "CREATE TABLE IF NOT EXISTS bench_points (user_uuid TEXT PRIMARY KEY, balance INTEGER NOT NULL)",
    });
    t0 = performance.now();
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK) - 1;
      await call({
        op: "sql",
        sql: `WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?) INSERT OR IGNORE INTO bench_points SELECT printf('bench-%07d', i), (i * 7919) % 100003 FROM s`,
        params: [from, to],
      });
    }
    // The index after the rows, as a bulk load would; the board keeps its index live.
    await call({
      op: "exec",
      sql: "CREATE INDEX IF NOT EXISTS bench_points_rank ON bench_points (balance DESC, user_uuid)",
    });
    const d1LoadS = (performance.now() - t0) / 1000;
    const d1Rows = (await call({ op: "sql", sql: "SELECT COUNT(*) AS n FROM bench_points" }))[0].n;
    log(`D1: ${d1Rows.toLocaleString("en")} rows loaded and indexed in ${d1LoadS.toFixed(1)} s`);

    // ---- reads --------------------------------------------------------------------------
    const rand = rng(20261121);
    const d1Top = {
      op: "sql",
      sql: "SELECT user_uuid, balance FROM bench_points ORDER BY balance DESC, user_uuid LIMIT 100",
    };
    const d1Rank = (user) => ({
      op: "sql",
      sql: "SELECT 1 + COUNT(*) AS rank FROM bench_points WHERE balance > (SELECT balance FROM bench_points WHERE user_uuid = ?)",
      params: [user],
    });
    for (let i = 0; i < 10; i++) {
      await call({ op: "top" });
      await call(d1Top);
    }
    const m = { boardTop: [], d1Top: [], boardRank: [], d1Rank: [], boardNoop: [], d1Noop: [] };
    let agree = 0;
    for (let i = 0; i < N; i++) {
      const u = userOf(Math.floor(rand() * ROWS));
      const pair = i % 2 === 0 ? ["board", "d1"] : ["d1", "board"];
      for (const side of pair) {
        if (side === "board") {
          const top = await timed({ op: "top" });
          m.boardTop.push(top.ms);
          const rank = await timed({ op: "rank", user: u });
          m.boardRank.push(rank.ms);
          m.boardNoop.push((await timed({ op: "noop" })).ms);
          if (i === 0) m.firstTop = top.r;
          m.lastBoardRank = rank.r?.rank;
        } else {
          const top = await timed(d1Top);
          m.d1Top.push(top.ms);
          const rank = await timed(d1Rank(u));
          m.d1Rank.push(rank.ms);
          m.d1Noop.push((await timed({ op: "sql", sql: "SELECT 1" })).ms);
          if (i === 0) m.firstD1Top = top.r;
          m.lastD1Rank = rank.r[0].rank;
        }
      }
      if (m.lastBoardRank === m.lastD1Rank) agree++;
    }
    const sameTop =
      JSON.stringify(m.firstTop.map((r) => [r.userUuid, r.balance])) ===
      JSON.stringify(m.firstD1Top.map((r) => [r.user_uuid, r.balance]));
    log(
      `both sides agree: top 100 ${sameTop ? "identical" : "DIFFERENT"}; ranks equal for ${agree}/${N} users`,
    );

    // ---- writes -------------------------------------------------------------------------
    const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
    t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const events = Array.from({ length: 100 }, (_, k) => ({
        eventId: `w-${b}-${k}`,
        userUuid: userOf(Math.floor(rand() * ROWS)),
        points: 1 + (k % 3),
        occurredAt: Date.now(),
      }));
      await call({ op: "batch", events });
    }
    const batchS = (performance.now() - t0) / 1000;
    const ONES = Number(process.env.BENCH_ONES ?? 1000);
    t0 = performance.now();
    for (let k = 0; k < ONES; k++)
      await call({
        op: "one",
        eventId: `o-${k}`,
        user: userOf(Math.floor(rand() * ROWS)),
        points: 1,
      });
    const oneS = (performance.now() - t0) / 1000;

    const r2 = (v) => Math.round(v * 100) / 100;
    const results = {
      rows: ROWS,
      load: { boardSeconds: r2(boardLoadS), d1Seconds: r2(d1LoadS) },
      top100: {
        board: stats(m.boardTop),
        d1: stats(m.d1Top),
        ratioP50: r2(stats(m.d1Top).p50 / stats(m.boardTop).p50),
      },
      rank: {
        board: stats(m.boardRank),
        d1: stats(m.d1Rank),
        ratioP50: r2(stats(m.d1Rank).p50 / stats(m.boardRank).p50),
      },
      roundTrip: { board: stats(m.boardNoop), d1: stats(m.d1Noop) },
      pointsPerSecond: {
        batchOf100: Math.round((BATCHES * 100) / batchS),
        oneByOne: Math.round(ONES / oneS),
      },
      checks: { sameTop100: sameTop, ranksEqual: `${agree}/${N}` },
    };
    log("");
    log(
      `| ${ROWS.toLocaleString("en")} users | board p50 / p95 ms | D1 p50 / p95 ms | D1/board (p50) |`,
    );
    log("|---|---|---|---|");
    log(
      `| top 100 | ${results.top100.board.p50} / ${results.top100.board.p95} | ${results.top100.d1.p50} / ${results.top100.d1.p95} | ${results.top100.ratioP50}x |`,
    );
    log(
      `| one user's rank | ${results.rank.board.p50} / ${results.rank.board.p95} | ${results.rank.d1.p50} / ${results.rank.d1.p95} | ${results.rank.ratioP50}x |`,
    );
    log(
      `| bare round trip | ${results.roundTrip.board.p50} / ${results.roundTrip.board.p95} | ${results.roundTrip.d1.p50} / ${results.roundTrip.d1.p95} | |`,
    );
    log(
      `points applied: ${results.pointsPerSecond.batchOf100.toLocaleString("en")}/s in batches of 100, ${results.pointsPerSecond.oneByOne.toLocaleString("en")}/s one call each`,
    );
    log(`load: board ${results.load.boardSeconds} s, D1 ${results.load.d1Seconds} s`);
    return results;
  } finally {
    await mf.dispose();
  }
}

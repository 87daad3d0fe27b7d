// Song search at catalogue scale: the FTS5 query the API runs (workers/songs/search.ts)
// against a plain LIKE scan, on 100,000 synthetic songs in a local D1 (Miniflare, the same
// workerd + SQLite as `wrangler dev`). Each query runs both ways back to back, alternating
// which goes first, so load from whatever else the machine is doing hits both alike.
// BENCH_ROWS and BENCH_N override the catalogue size and the number of queries.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { workerCall } from "./lib/miniflare-call.mjs";
import { rng } from "../scripts/rng.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const N = Number(process.env.BENCH_N ?? 200);
const WARMUP = 20;
const LIMIT = 20;

/**
 * The API's own ftsQuery, bundled from the TypeScript source (esbuild ships with wrangler
 * and vite), so the benchmark measures the query the API builds, never a copy that drifts.
 */
async function loadFtsQuery() {
  const out = await build({
    entryPoints: [`${ROOT}workers/songs/search.ts`],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
  });
  const mod = await import(
    `data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`
  );
  return mod.ftsQuery;
}

// A worker that runs statements on its D1 binding: the same path a request takes in the
// app (worker -> D1), and cheaper per call than Miniflare's Node-side D1 proxy.
const WORKER = `export default {
  async fetch(req, env) {
    const body = await req.json();
    if (body.stmts) {
      // Several statements in one D1 batch, as the API pages a list (rows + total).
      const rs = await env.DB.batch(body.stmts.map((s) => env.DB.prepare(s.sql).bind(...s.params)));
      return Response.json({ rows: rs[0].results, results: rs.map((r) => r.results), rowsRead: rs.reduce((n, r) => n + r.meta.rows_read, 0) });
    }
    if (body.batch) {
      await env.DB.batch(body.batch.map((s) => env.DB.prepare(s)));
      return Response.json({ ok: true });
    }
    const r = await env.DB.prepare(body.sql).bind(...body.params).all();
    return Response.json({ rows: r.results, rowsRead: r.meta.rows_read });
  },
};`;

const rand = rng(20260426);
// Skewed picks (the head of a list far more often than its tail), like real catalogues
// where "love" is everywhere and "marmalade" is rare.
const skew = (list, power = 2.5) => list[Math.floor(list.length * rand() ** power)];
const cap = (w) => w[0].toUpperCase() + w.slice(1);
const words = (s) => s.split(" ");

const TRACK = words(
  "love night blue heart fire dream summer moon light dance city rain gold wild river home star shadow girl baby time world sky ocean road eyes soul street sun midnight neon electric sweet lonely golden silver black burning falling broken forever tonight yesterday morning paradise heaven thunder whisper echo velvet crystal diamond storm wave highway sunset sunrise winter autumn spring garden mirror ghost angel devil runaway hurricane honey sugar cherry lemon paper glass stone iron satellite rocket radio television machine signal static frequency motion gravity orbit comet planet cosmic desert canyon island harbor lighthouse anchor sailor pirate cowboy outlaw rebel stranger lover dancer dreamer believer sinner saint kingdom empire castle tower bridge tunnel window door key letter promise secret memory reason season feeling wonder magic mystery miracle fever poison medicine remedy cure rhythm melody harmony chorus anthem lullaby serenade ballad blues groove funk soul jazz boogie disco shuffle swing tango rumba mambo samba fiesta carnival circus parade festival holiday weekend saturday sunday monday friday december july june april marmalade tangerine lavender saffron cinnamon vanilla espresso whiskey champagne bourbon tequila mezcal absinthe velour chiffon sequin glitter",
);
const FIRST = words(
  "james john robert michael william david richard joseph thomas charles mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty sandra ashley kimberly emily donna michelle carol amanda melissa deborah stephanie rebecca laura sharon cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen samantha katherine christine debra rachel carolyn janet maria olivia sophia isabella mia aria luna nova kai leo milo felix oscar hugo ezra otis arlo jude",
);
const LAST = words(
  "smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas taylor moore jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king wright scott torres nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter roberts okafor kowalski nakamura lindqvist moreau rossi schmidt novak petrov haddad",
);
const ADJ = words(
  "black white red blue velvet electric silver golden midnight crimson neon wild lonely happy broken dirty pretty holy lucky cosmic rolling flaming arctic tropical sonic atomic digital analog",
);
const NOUNS = words(
  "keys stones kings queens wolves ravens tigers lions foxes hearts bones saints sinners rebels strangers dreamers drifters ghosts angels machines robots pilots sailors cowboys outlaws shadows echoes lights waves rockets",
);
const MONO = words(
  "kairo lumen zephyr solace vesper onyx nimbus halcyon marlowe sable juniper aurora indigo cassius orion delphine ember vega lyric sonnet",
);
const ALBUM = words(
  "chronicles sessions live volume stories tapes collection letters songs diaries postcards reflections horizons frontiers memories confessions revelations portraits landscapes visions anthology greatest hits unplugged acoustic deluxe remastered edition",
);
const GENRES = words(
  "pop rock hip-hop r&b country jazz blues classical electronic house techno trance dubstep drum&bass reggae soul funk disco metal punk indie folk latin k-pop ambient lo-fi synthwave gospel afrobeat",
).map((g) => g.replace("&", " & "));

function song(i) {
  const n = 1 + Math.floor(rand() ** 1.5 * 3);
  let track = Array.from({ length: n }, () => cap(skew(TRACK))).join(" ");
  const r = rand();
  if (r < 0.08) track += " (Remix)";
  else if (r < 0.13) track += " - Live";
  const a = rand();
  const artist =
    a < 0.5
      ? `${cap(skew(FIRST))} ${cap(skew(LAST))}`
      : a < 0.85
        ? `The ${cap(skew(ADJ))} ${cap(skew(NOUNS))}`
        : cap(skew(MONO, 1));
  const b = rand();
  const album =
    b < 0.1
      ? null
      : b < 0.4
        ? cap(skew(TRACK))
        : b < 0.7
          ? `${cap(skew(TRACK))} ${cap(skew(ALBUM, 1.5))}`
          : `${cap(skew(ADJ))} ${cap(skew(TRACK))}`;
  return {
    songId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    shortId: `b${i.toString(36).padStart(9, "0")}`,
    track,
    artist,
    album,
    genre: skew(GENRES, 1.8),
    duration: 120 + Math.floor(rand() * 240),
    year: 1960 + Math.floor(rand() * 66),
  };
}

/**
 * What people type: a word from a real song's track, artist or album, usually cut short
 * ("midn"), or two adjacent words with the second cut short ("blue mo").
 */
function makeQuery(catalogue) {
  for (;;) {
    const s = catalogue[Math.floor(rand() * catalogue.length)];
    const field = rand() < 0.5 ? s.track : rand() < 0.7 ? s.artist : s.album;
    if (!field) continue;
    const ws = field
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    const prefix = (w) => w.slice(0, Math.min(w.length, 2 + Math.floor(rand() * (w.length - 1))));
    if (ws.length >= 2 && rand() < 0.3) {
      const k = Math.floor(rand() * (ws.length - 1));
      return { q: `${ws[k]} ${prefix(ws[k + 1])}`, words: 2 };
    }
    const w = ws[Math.floor(rand() * ws.length)];
    if (w.length < 2) continue;
    return { q: prefix(w), words: 1 };
  }
}

// The condition of "select ... from songs where <condition> limit n" (its first where).
const whereOf = (sql) => sql.slice(sql.indexOf(" where ") + 7).replace(/ limit \d+$/, "");
const sqlText = (v) =>
  v === null ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v) => Math.round(v * 1000) / 1000;
  return {
    p50: r(pct(s, 50)),
    p95: r(pct(s, 95)),
    mean: r(s.reduce((a, b) => a + b, 0) / s.length),
    min: r(s[0]),
    max: r(s[s.length - 1]),
  };
}
// Accent folding as unicode61 remove_diacritics does it, for checking rows in JS.
const fold = (s) => (s ?? "").normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

export default async function run({ log = console.log } = {}) {
  const ftsQuery = await loadFtsQuery();
  const mf = new Miniflare({
    modules: true,
    script: WORKER,
    compatibilityDate: "2026-04-26",
    d1Databases: { DB: "bench-search" },
  });
  try {
    const call = workerCall(mf);

    // The project's migrations, statement by statement, as wrangler applies them.
    const files = readdirSync(`${ROOT}migrations`)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    for (const f of files) {
      const stmts = readFileSync(`${ROOT}migrations/${f}`, "utf8")
        .split("--> statement-breakpoint")
        .filter((s) => s.replace(/--.*$/gm, "").trim());
      await call({ batch: stmts });
    }
    log(`applied ${files.length} migrations (${files.join(", ")})`);

    // The catalogue: multi-row INSERTs (the FTS triggers fire per row), 10 per batch.
    let t0 = performance.now();
    const catalogue = [];
    const cols =
      "song_id, song_short_id, track_name, artist_name, album_name, genre, duration, release_year, status, is_public";
    let stmts = [];
    for (let i = 0; i < ROWS; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(ROWS, i + 500); j++) {
        const s = song(j);
        catalogue.push(s);
        rows.push(
          `(${[s.songId, s.shortId, s.track, s.artist, s.album, s.genre, s.duration, s.year, "VERIFIED", 1].map(sqlText).join(", ")})`,
        );
      }
      stmts.push(`INSERT INTO songs (${cols}) VALUES ${rows.join(", ")}`);
      if (stmts.length === 10 || i + 500 >= ROWS) {
        await call({ batch: stmts });
        stmts = [];
      }
    }
    const insertSeconds = (performance.now() - t0) / 1000;
    const { rows: countRows } = await call({
      sql: "select count(*) as n, (select count(*) from songs_fts) as f from songs",
      params: [],
    });
    log(
      `inserted ${countRows[0].n.toLocaleString("en")} songs (${countRows[0].f.toLocaleString("en")} FTS rows) in ${insertSeconds.toFixed(1)} s`,
    );

    // Both ways of searching, as SQL.
    const fts = (q) => ({
      sql: `select songs.id, songs.track_name, songs.artist_name, songs.album_name, songs.genre from songs where songs.id in (select rowid from songs_fts where songs_fts match ?) limit ${LIMIT}`,
      params: [ftsQuery(q)],
    });
    const likeWords = (q) =>
      q
        .normalize("NFKC")
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
    // Several words: every word must appear in some column (what the FTS query means too).
    const like = (q) => {
      const ws = likeWords(q);
      return {
        sql: `select songs.id, songs.track_name, songs.artist_name, songs.album_name, songs.genre from songs where ${ws.map(() => "(track_name like ? or artist_name like ? or album_name like ?)").join(" and ")} limit ${LIMIT}`,
        params: ws.flatMap((w) => [`%${w}%`, `%${w}%`, `%${w}%`]),
      };
    };
    // As the API's GET /search pages (workers/songs/search.ts, songPage with NEWEST_MATCHES):
    // listed songs only (the unary + keeps SQLite off the status index, so the matches drive
    // the query), newest first by id, plus the total. Both ways must then find every match
    // for the total, so LIKE can no longer stop early.
    const listed = " and +songs.status = 'VERIFIED' and +songs.is_public = 1";
    const paged = ({ sql, params }) => {
      const where = `${whereOf(sql)}${listed}`;
      return {
        stmts: [
          {
            sql: `${sql.replace(/ limit \d+$/, "")}${listed} order by songs.id desc limit ${LIMIT}`,
            params,
          },
          { sql: `select count(*) as total from songs where ${where}`, params },
        ],
      };
    };
    const timed = async (body) => {
      const t = process.hrtime.bigint();
      const r = await call(body);
      return {
        ms: Number(process.hrtime.bigint() - t) / 1e6,
        rows: r.rows,
        results: r.results,
        rowsRead: r.rowsRead,
      };
    };

    const queries = Array.from({ length: N }, () => makeQuery(catalogue));
    for (let i = 0; i < WARMUP; i++) {
      const { q } = makeQuery(catalogue);
      await timed(fts(q));
      await timed(like(q));
    }

    // Interleaved: each query both ways (and a bare round trip), the order alternating.
    const per = [];
    const base = [];
    for (let i = 0; i < queries.length; i++) {
      const { q, words: nw } = queries[i];
      let f;
      let l;
      if (i % 2 === 0) {
        f = await timed(fts(q));
        l = await timed(like(q));
      } else {
        l = await timed(like(q));
        f = await timed(fts(q));
      }
      base.push((await timed({ sql: "select 1", params: [] })).ms);
      // The API-shaped pair, also interleaved (supplementary; the headline is the pair above).
      let fp;
      let lp;
      if (i % 2 === 0) {
        fp = await timed(paged(fts(q)));
        lp = await timed(paged(like(q)));
      } else {
        lp = await timed(paged(like(q)));
        fp = await timed(paged(fts(q)));
      }
      per.push({
        q,
        words: nw,
        ftsMs: f.ms,
        likeMs: l.ms,
        ftsPagedMs: fp.ms,
        likePagedMs: lp.ms,
        total: fp.results?.[1]?.[0]?.total,
        likeTotal: lp.results?.[1]?.[0]?.total,
        ftsRows: f.rows.length,
        likeRows: l.rows.length,
        ftsRowsRead: f.rowsRead,
        likeRowsRead: l.rowsRead,
        ftsSample: f.rows,
      });
    }

    // Comparable? Both must find songs; every FTS row must really hold each word as a
    // word prefix, and every LIKE row each word as a substring.
    let ftsRowsOk = 0;
    let ftsRowsTotal = 0;
    let ftsRowsLikeWouldFind = 0;
    for (const p of per) {
      const ws = likeWords(p.q).map(fold);
      for (const r of p.ftsSample) {
        ftsRowsTotal++;
        const tokens = [r.track_name, r.artist_name, r.album_name, r.genre].flatMap((v) =>
          fold(v).split(/[^\p{L}\p{N}]+/u),
        );
        if (ws.every((w) => tokens.some((t) => t.startsWith(w)))) ftsRowsOk++;
        if (
          ws.every((w) =>
            [r.track_name, r.artist_name, r.album_name].some((v) => fold(v).includes(w)),
          )
        )
          ftsRowsLikeWouldFind++;
      }
      delete p.ftsSample;
    }
    // Full match counts for a sample (untimed): how many songs each way finds in all.
    const countSample = per.slice(0, 30).map(({ q }) => ({ q }));
    for (const c of countSample) {
      const f = fts(c.q);
      const l = like(c.q);
      c.fts = (
        await call({
          sql: `select count(*) as n from songs where songs.id in (select rowid from songs_fts where songs_fts match ?)`,
          params: f.params,
        })
      ).rows[0].n;
      c.like = (
        await call({
          sql: `select count(*) as n from songs where ${whereOf(l.sql)}`,
          params: l.params,
        })
      ).rows[0].n;
    }

    const ftsS = stats(per.map((p) => p.ftsMs));
    const likeS = stats(per.map((p) => p.likeMs));
    const baseS = stats(base);
    const rr = (a, b) => Math.round((a / b) * 100) / 100;
    const x = (v) => `${v.toFixed(1)}x`;
    const ratio = {
      p50: rr(likeS.p50, ftsS.p50),
      p95: rr(likeS.p95, ftsS.p95),
      medianPerQuery: rr(stats(per.map((p) => p.likeMs / p.ftsMs)).p50, 1),
    };
    const byKind = Object.fromEntries(
      [1, 2].map((k) => {
        const ps = per.filter((p) => p.words === k);
        return [
          `${k}-word`,
          {
            n: ps.length,
            fts: stats(ps.map((p) => p.ftsMs)),
            like: stats(ps.map((p) => p.likeMs)),
          },
        ];
      }),
    );
    const pagedS = {
      fts: stats(per.map((p) => p.ftsPagedMs)),
      like: stats(per.map((p) => p.likePagedMs)),
    };
    pagedS.ratio = {
      p50: rr(pagedS.like.p50, pagedS.fts.p50),
      p95: rr(pagedS.like.p95, pagedS.fts.p95),
    };
    const rowsRead = {
      fts: stats(per.map((p) => p.ftsRowsRead)),
      like: stats(per.map((p) => p.likeRowsRead)),
    };
    const comparable = {
      queries: per.length,
      ftsFound: per.filter((p) => p.ftsRows > 0).length,
      likeFound: per.filter((p) => p.likeRows > 0).length,
      bothFound: per.filter((p) => p.ftsRows > 0 && p.likeRows > 0).length,
      bothFullPage: per.filter((p) => p.ftsRows === LIMIT && p.likeRows === LIMIT).length,
      ftsRowsMatchingWordPrefixes: `${ftsRowsOk}/${ftsRowsTotal}`,
      ftsRowsLikeAlsoMatches: `${ftsRowsLikeWouldFind}/${ftsRowsTotal}`,
      totalMatchesSample: countSample,
      medianLikeToFtsMatchCount: rr(
        stats(countSample.map((c) => c.like / Math.max(1, c.fts))).p50,
        1,
      ),
    };

    const f2 = (v) => v.toFixed(2).padStart(8);
    log(
      `\n${ROWS.toLocaleString("en")} songs, ${per.length} queries (${byKind["1-word"].n} one-word, ${byKind["2-word"].n} two-word prefixes), limit ${LIMIT}, interleaved.`,
    );
    log(
      "Times are round trips Node -> worker -> D1 (Miniflare); the select-1 row is that trip alone.\n",
    );
    log(
      "method                              p50 ms   p95 ms  mean ms   max ms   rows read p50 / p95   found  full page",
    );
    log(
      `FTS5 (API: songs_fts match "w"*) ${f2(ftsS.p50)} ${f2(ftsS.p95)} ${f2(ftsS.mean)} ${f2(ftsS.max)}   ${String(rowsRead.fts.p50).padStart(9)} / ${String(rowsRead.fts.p95).padEnd(9)} ${String(comparable.ftsFound).padStart(5)}  ${String(per.filter((p) => p.ftsRows === LIMIT).length).padStart(9)}`,
    );
    log(
      `LIKE '%w%' scan                  ${f2(likeS.p50)} ${f2(likeS.p95)} ${f2(likeS.mean)} ${f2(likeS.max)}   ${String(rowsRead.like.p50).padStart(9)} / ${String(rowsRead.like.p95).padEnd(9)} ${String(comparable.likeFound).padStart(5)}  ${String(per.filter((p) => p.likeRows === LIMIT).length).padStart(9)}`,
    );
    log(
      `select 1 (round trip only)       ${f2(baseS.p50)} ${f2(baseS.p95)} ${f2(baseS.mean)} ${f2(baseS.max)}`,
    );
    log(
      `LIKE / FTS                       ${x(ratio.p50).padStart(8)} ${x(ratio.p95).padStart(8)}   (median of per-query ratios ${x(ratio.medianPerQuery)})`,
    );
    const pp = (st) => `${st.p50.toFixed(2)} / ${st.p95.toFixed(2)}`;
    log(
      `\nby query kind (p50 / p95 ms): 1-word FTS ${pp(byKind["1-word"].fts)}, LIKE ${pp(byKind["1-word"].like)}; 2-word FTS ${pp(byKind["2-word"].fts)}, LIKE ${pp(byKind["2-word"].like)}`,
    );
    log(
      `comparable: both found songs for ${comparable.bothFound}/${per.length} queries (full page both ways: ${comparable.bothFullPage}); FTS rows holding every word as a word prefix ${comparable.ftsRowsMatchingWordPrefixes}, of which LIKE would also match ${comparable.ftsRowsLikeAlsoMatches}; ` +
        `in all, LIKE finds ${comparable.medianLikeToFtsMatchCount.toFixed(2)}x the songs FTS finds (median over ${countSample.length} queries: substrings inside words count for LIKE)`,
    );
    log(
      `as the API pages (listed, order by id desc + count(*), one D1 batch): FTS ${pp(pagedS.fts)} ms, LIKE ${pp(pagedS.like)} ms (p50 / p95), LIKE/FTS ${x(pagedS.ratio.p50)} / ${x(pagedS.ratio.p95)}`,
    );
    const slow = [...per].sort((a, b) => b.likeMs - a.likeMs).slice(0, 3);
    log(
      `slowest LIKE queries: ${slow.map((p) => `"${p.q}" ${p.likeMs.toFixed(1)} ms (FTS ${p.ftsMs.toFixed(1)} ms)`).join(", ")}`,
    );

    return {
      rows: ROWS,
      insertSeconds: Math.round(insertSeconds * 10) / 10,
      n: per.length,
      limit: LIMIT,
      fts: ftsS,
      like: likeS,
      roundTrip: baseS,
      ratio,
      byKind,
      apiPaged: pagedS,
      rowsRead,
      comparable,
      queries: per,
    };
  } finally {
    await mf.dispose();
  }
}

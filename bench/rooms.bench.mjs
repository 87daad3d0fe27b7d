// A vote storm in one room under `wrangler dev`, beside a bare partyserver broadcast object
// measured in the same run (issues 4 and 11), and the room's crowd figures (issue 11).
// Storm, for each socket count (BENCH_SOCKETS, default "1000") and each rate (BENCH_RATES,
// votes a second in total, default "300,1000"); bench/lib/room-storm.mjs:
//   ours: N voter sockets (accounts in D1, as the gateway requires) in a fresh room (made
//         through the room-service, auto-skip off; the seeded DJ's song playing); every
//         voter votes once (like, dislike, like, ...), then every dislike is changed to a
//         like. Measured: votes the room counted (its final voteCounts against what was
//         sent), votes per second until every socket had the final counts, and for each
//         vote the time until EVERY socket had seen a frame whose counts include it; frames
//         per socket per second; seq gaps.
//   bare: the same N sockets on bench/bare-room (one frame per message to every socket),
//         the same send rate, BENCH_BARE_MSGS messages (default 300: enough for the
//         percentiles, few enough that a backlog drains in seconds); the same latency, and
//         messages fully delivered per second. Then the ratio ours/bare.
// "Includes it": counts grow by one per vote in a phase, so vote k is in when the count
// reaches its k-th value (an overtaking later vote stands in for an earlier one).
//   bots: the same storm as ours with every odd voter a tt.live bot speaking ttfm-socket's
//         frames at /primus (issue 17), the others browsers (BENCH_HALF_BOTS=0 skips it).
// Crowd (BENCH_CROWD_USERS, default "1000,10000"; bench/lib/room-crowd.mjs): one room filled
// with that many synthetic present users through the dev-only route: the roomState frame a
// joiner gets, in bytes, and the cost of one vote (BENCH_CROWD_VOTES votes a call, default
// 1000, BENCH_CROWD_REPS repetitions, default 9, the median). "0" skips either part.
// Servers and sockets share one machine: the numbers compare designs, not a server's capacity.
import { rmSync } from "node:fs";
import { migrateAndSeed, SEED_USERS } from "../scripts/seed.mjs";
import { seedDemoSongs } from "../scripts/seed-songs.mjs";
import { benchCrowd } from "./lib/room-crowd.mjs";
import { benchBare, benchOurs } from "./lib/room-storm.mjs";
import { ratio, sleep } from "./lib/sockets.mjs";
import {
  api,
  d1Execute,
  devSigner,
  devVar,
  freshState,
  launch,
  startWrangler,
  stopAll,
  stopAllOnSignal,
} from "./lib/wrangler.mjs";
import { list } from "./lib/env-list.mjs";

const COUNTS = list(process.env.BENCH_SOCKETS, "1000");
const RATES = list(process.env.BENCH_RATES, "300,1000");
const BARE_MSGS = Number(process.env.BENCH_BARE_MSGS ?? 300);
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 30_000);
const CROWD = list(process.env.BENCH_CROWD_USERS, "1000,10000");
const HALF_BOTS = process.env.BENCH_HALF_BOTS !== "0";
const CROWD_VOTES = Number(process.env.BENCH_CROWD_VOTES ?? 1000);
const CROWD_REPS = Number(process.env.BENCH_CROWD_REPS ?? 9);
const DJ = SEED_USERS.find((u) => u.email === "dj.sam@hangout.local");

/** The i-th voter's account uuid (a valid v4 uuid; the D1 rows are made before wrangler starts). */
const voterUuid = (i) => `b0000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
function votersSql(n) {
  const stmts = [];
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 500); j++)
      rows.push(`('${voterUuid(j)}', 'Voter ${j}', 1)`);
    stmts.push(
      `INSERT OR IGNORE INTO users (uuid, nickname, email_verified) VALUES ${rows.join(", ")};`,
    );
  }
  return stmts.join("\n");
}

export default async function run({ log = console.log } = {}) {
  const sign = await devSigner();
  const voters = Math.max(0, ...COUNTS);
  stopAllOnSignal();
  const oursState = freshState("rooms");
  const states = [oursState];
  let ours = null;
  try {
    let t = performance.now();
    migrateAndSeed({ persistTo: oursState, quiet: true });
    if (voters) d1Execute(oursState, votersSql(voters));
    const started = await Promise.allSettled([
      launch(
        "ours",
        [],
        oursState,
        async (b) => (await fetch(`${b}/api/user-service/info-admin/user-service-status`)).ok,
      ),
      COUNTS.length
        ? startWrangler(
            "bare",
            ["--config", "bench/bare-room/wrangler.toml"],
            async (b) => (await fetch(b)).status === 404,
          )
        : null,
    ]);
    for (const s of started)
      if (s.status === "fulfilled" && s.value?.state) states.push(s.value.state);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const bare = started[1].value;
    ours = started[0].value;
    log(
      `wrangler dev up: ours ${ours.base}${bare ? `, bare ${bare.base}` : ""} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );

    // The DJ's queue: every demo song (each run gets a fresh room and a fresh song).
    const seeded = await seedDemoSongs(ours.base);
    const { token: djToken } = await api(ours.base, "POST", "/api/user-service/auth/login", {
      json: { email: DJ.email, password: DJ.password },
    });
    for (const s of seeded.songs)
      await api(ours.base, "POST", "/api/playlist-service/crate/queue/songs", {
        token: djToken,
        json: { songId: s.songId },
      });
    log(`dj queue: ${seeded.songs.length} demo songs`);
    const voterTokens = await Promise.all(
      Array.from({ length: voters }, (_, i) => sign(voterUuid(i))),
    );

    const rows = [];
    for (const n of COUNTS) {
      for (const rate of RATES) {
        log(`-- ${n} sockets, ${rate} votes/s --`);
        const common = { n, rate, drainMs: DRAIN_MS, log };
        const o = await benchOurs({
          ...common,
          base: ours.base,
          voterTokens,
          djToken,
          bareMsgs: BARE_MSGS,
        });
        await sleep(1000);
        let h = null;
        if (HALF_BOTS) {
          log(`  half of them bots (/primus):`);
          h = await benchOurs({
            ...common,
            base: ours.base,
            voterTokens,
            djToken,
            bareMsgs: BARE_MSGS,
            halfBots: true,
          });
          await sleep(1000);
        }
        log(`  bare (${BARE_MSGS} messages):`);
        const b = await benchBare({ ...common, base: bare.base, msgs: BARE_MSGS });
        await sleep(1000);
        rows.push({
          sockets: n,
          rate,
          ours: o,
          halfBots: h,
          bare: b,
          ratio: {
            throughput: ratio(o.votesPerSecond, b.msgsPerSecond),
            p50: ratio(o.latencyMs?.p50, b.latencyMs?.p50),
            p99: ratio(o.latencyMs?.p99, b.latencyMs?.p99),
            // ours over its first BARE_MSGS votes only (the same number of messages as bare).
            p50SameCount: ratio(o.latencyFirstBareMsgsVotesMs?.p50, b.latencyMs?.p50),
            p99SameCount: ratio(o.latencyFirstBareMsgsVotesMs?.p99, b.latencyMs?.p99),
          },
        });
      }
    }

    let crowd = [];
    if (CROWD.length) {
      log(`-- crowd: ${CROWD.join(", ")} users --`);
      crowd = await benchCrowd({
        base: ours.base,
        serviceKey: devVar("SERVICE_KEY"),
        djToken,
        sizes: CROWD,
        votes: CROWD_VOTES,
        reps: CROWD_REPS,
        log,
      });
    }

    printTables(rows, crowd, log);
    return {
      config: {
        sockets: COUNTS,
        rates: RATES,
        bareMsgs: BARE_MSGS,
        drainMs: DRAIN_MS,
        crowdUsers: CROWD,
        crowdVotes: CROWD_VOTES,
        crowdReps: CROWD_REPS,
        halfBots: HALF_BOTS,
      },
      rows,
      crowd,
    };
  } catch (e) {
    // What the Worker said last is usually the reason (a crash, an exception in the object).
    if (ours) log(`ours (wrangler dev) said last:\n${ours.log().slice(-4000)}`);
    throw e;
  } finally {
    await stopAll();
    for (const s of states) rmSync(s, { recursive: true, force: true });
  }
}

function printTables(rows, crowd, log) {
  const pad = (v, w) => String(v ?? "-").padStart(w);
  if (rows.length)
    log(
      `\nsockets  votes/s  impl   opened  sent  counted  offered/s  delivered/s   p50 ms   p99 ms  frames/sock/s  gaps  complete  client cpu`,
    );
  for (const r of rows) {
    const o = r.ours;
    const b = r.bare;
    const head = `${pad(r.sockets, 7)}  ${pad(r.rate, 7)}`;
    log(
      `${head}  ours  ${pad(o.sockets, 7)} ${pad(o.votesSent, 5)} ${pad(o.votesAccepted, 8)} ${pad(o.offeredVotesPerSecond, 10)} ${pad(o.votesPerSecond, 12)} ${pad(o.latencyMs?.p50, 8)} ${pad(o.latencyMs?.p99, 8)} ${pad(o.framesPerSocketPerSecond, 14)} ${pad(o.seqGaps, 5)}  ${pad(o.completeDelivery, 8)}  ${pad(o.clientCpuCores, 10)}`,
    );
    const h = r.halfBots;
    if (h)
      log(
        `${head}  bots  ${pad(h.sockets, 7)} ${pad(h.votesSent, 5)} ${pad(h.votesAccepted, 8)} ${pad(h.offeredVotesPerSecond, 10)} ${pad(h.votesPerSecond, 12)} ${pad(h.latencyMs?.p50, 8)} ${pad(h.latencyMs?.p99, 8)} ${pad(h.framesPerSocketPerSecond, 14)} ${pad(h.seqGaps, 5)}  ${pad(h.completeDelivery, 8)}  ${pad(h.clientCpuCores, 10)}`,
      );
    log(
      `${head}  bare  ${pad(b.sockets, 7)} ${pad(b.msgsSent, 5)} ${pad(b.msgsFullyDelivered, 8)} ${pad(b.offeredMsgsPerSecond, 10)} ${pad(b.msgsPerSecond, 12)} ${pad(b.latencyMs?.p50, 8)} ${pad(b.latencyMs?.p99, 8)} ${pad(b.framesPerSocketPerSecond, 14)} ${pad("", 5)}  ${pad(b.completeDelivery, 8)}  ${pad(b.clientCpuCores, 10)}`,
    );
    log(
      `${head}  ours/bare: delivered/s x${r.ratio.throughput ?? "-"}, p50 x${r.ratio.p50 ?? "-"}, p99 x${r.ratio.p99 ?? "-"}` +
        ` (ours' first ${BARE_MSGS} votes only: p50 ${o.latencyFirstBareMsgsVotesMs?.p50 ?? "-"} ms x${r.ratio.p50SameCount ?? "-"}, p99 ${o.latencyFirstBareMsgsVotesMs?.p99 ?? "-"} ms x${r.ratio.p99SameCount ?? "-"})`,
    );
  }
  if (crowd.length)
    log(`\n  users  present  full state bytes  votes/call  reps  call 0 ms  call K ms  ms/vote`);
  for (const c of crowd)
    if (c.error) log(`${pad(c.users, 7)}  failed: ${c.error}`);
    else
      log(
        `${pad(c.users, 7)}  ${pad(c.present, 7)}  ${pad(c.fullStateBytes, 16)}  ${pad(c.votesPerCall, 10)}  ${pad(c.repetitions, 4)}  ${pad(c.callZeroVotesMsMedian, 9)}  ${pad(c.callKVotesMsMedian, 9)}  ${pad(c.msPerVote, 7)}`,
      );
}

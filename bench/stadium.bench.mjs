// Stadium rooms (issue 19): one room with BENCH_STADIUM_SOCKETS listener sockets (default
// "10000"), spread over BENCH_STADIUM_PROCS client processes (default 4; bench/lib/
// stadium-client.mjs; each process has its own descriptor limit), under `wrangler dev`, in
// two designs side by side in the same run:
//   relays: the room serves BENCH_STADIUM_THRESHOLD sockets itself (default 100) and the
//           rest go through relays of BENCH_STADIUM_PER_RELAY sockets (default 1000);
//   single: one room object holds every socket (threshold above the socket count).
// For each design the sockets connect once; then for each rate (BENCH_RATES votes a second
// in total, default "100,300,1000") the DJ skips to a fresh song and the clients send
// min(sockets, rate x BENCH_STADIUM_SECONDS) first votes (like/dislike alternating; default
// 10 s). Measured per storm: votes the room counted, delivered votes per second (votes over
// the time until every socket had the last), p50/p99 from a vote's send until EVERY socket
// had a frame including it ("including": likes + dislikes reached its rank), seq gaps, whether
// every socket ended with the same counts at the same seq; the runtime workerd's CPU per
// second (every object shares it), each client process's CPU; and from the room and its
// relays (GET /dev/rooms/{id}/relays): frames, the room's probed tick cost, and each relay's
// sends; and the file descriptors each process holds before and after the sockets connect.
// The room's tick cost against sockets, with and without relays, is what predicts a
// deployed room: here every object shares 2 cores with the clients.
// The clients connect straight to the workerd that runs the Worker (bench/lib/procs.mjs
// finds its port), not through `wrangler dev`'s port: that is a second workerd, a dev-only
// proxy that held ~6.5 descriptors per socket and ran out of them near 3,000 sockets under
// this machine's hard limit of 20,000; the runtime holds ~1 per socket, and in production no
// such proxy exists. BENCH_STADIUM_VIA=proxy measures through the proxy as before.
import { fork } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { migrateAndSeed, SEED_USERS } from "../scripts/seed.mjs";
import { seedDemoSongs } from "../scripts/seed-songs.mjs";
import { cpuMs, fdCount, findRuntime, groupProcs } from "./lib/procs.mjs";
import { djRoom } from "./lib/room-storm.mjs";
import { latencyStats, r1, r2, sleep } from "./lib/sockets.mjs";
import {
  api,
  d1Execute,
  devSigner,
  devVar,
  freshState,
  launch,
  stopAll,
  stopAllOnSignal,
} from "./lib/wrangler.mjs";
import { list } from "./lib/env-list.mjs";

const SIZES = list(process.env.BENCH_STADIUM_SOCKETS, "10000");
const RATES = list(process.env.BENCH_RATES, "100,300,1000");
const PROCS = Number(process.env.BENCH_STADIUM_PROCS ?? 4);
const THRESHOLD = Number(process.env.BENCH_STADIUM_THRESHOLD ?? 100);
const PER_RELAY = Number(process.env.BENCH_STADIUM_PER_RELAY ?? 1000);
const SECONDS = Number(process.env.BENCH_STADIUM_SECONDS ?? 10);
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 30_000);
const DESIGNS = (process.env.BENCH_STADIUM_DESIGNS ?? "relays,single").split(",");
// "runtime" (default): sockets and calls go straight to the workerd that runs the Worker;
// "proxy": through wrangler dev's port (its proxy workerd, ~6.5 descriptors per socket).
const VIA = process.env.BENCH_STADIUM_VIA === "proxy" ? "proxy" : "runtime";
const DJ = SEED_USERS.find((u) => u.email === "dj.sam@hangout.local");
const CLIENT = fileURLToPath(new URL("./lib/stadium-client.mjs", import.meta.url));

const listenerUuid = (i) => `c0000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
function listenersSql(n) {
  const stmts = [];
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 500); j++)
      rows.push(`('${listenerUuid(j)}', 'Listener ${j}', 1)`);
    stmts.push(
      `INSERT OR IGNORE INTO users (uuid, nickname, email_verified) VALUES ${rows.join(", ")};`,
    );
  }
  return stmts.join("\n");
}

/** A child process's next message that has `key`. */
const next = (child, key) =>
  new Promise((resolve) => {
    const on = (m) => {
      if (!(key in m)) return;
      child.off("message", on);
      resolve(m[key]);
    };
    child.on("message", on);
  });

export default async function run({ log = console.log } = {}) {
  const sign = await devSigner();
  const most = Math.max(...SIZES);
  stopAllOnSignal();
  const state = freshState("stadium");
  let ours = null;
  try {
    migrateAndSeed({ persistTo: state, quiet: true });
    d1Execute(state, listenersSql(most));
    const ready = async (b) =>
      (await fetch(`${b}/api/user-service/info-admin/user-service-status`)).ok;
    const dev = await launch("stadium", [], state, ready);
    const runtime = await findRuntime(dev.child.pid, dev.port, ready);
    ours = { ...dev, base: VIA === "proxy" ? dev.base : runtime.base };
    log(
      `wrangler dev up: ${dev.base} (proxy workerd ${runtime.proxyPid}); the Worker's runtime: ${runtime.base} (workerd ${runtime.pid}); clients go to ${VIA === "proxy" ? "the proxy" : "the runtime"}`,
    );
    const seeded = await seedDemoSongs(ours.base);
    const { token: djToken } = await api(ours.base, "POST", "/api/user-service/auth/login", {
      json: { email: DJ.email, password: DJ.password },
    });
    for (const s of seeded.songs)
      await api(ours.base, "POST", "/api/playlist-service/crate/queue/songs", {
        token: djToken,
        json: { songId: s.songId },
      });
    const tokens = await Promise.all(Array.from({ length: most }, (_, i) => sign(listenerUuid(i))));
    const serviceKey = devVar("SERVICE_KEY");
    const figures = async (roomId, body) =>
      api(ours.base, body ? "POST" : "GET", `/api/room-service/dev/rooms/${roomId}/relays`, {
        ...(body ? { json: body } : {}),
        headers: { "X-Service-Key": serviceKey },
      });

    const rows = [];
    for (const n of SIZES)
      for (const design of DESIGNS) {
        log(`-- ${n} sockets, ${design} --`);
        rows.push(
          ...(await stadium({
            base: ours.base,
            pgid: ours.child.pid,
            runtime,
            n,
            design,
            tokens,
            djToken,
            figures,
            log,
          })),
        );
      }
    printTable(rows, log);
    return {
      config: {
        sockets: SIZES,
        rates: RATES,
        processes: PROCS,
        threshold: THRESHOLD,
        perRelay: PER_RELAY,
        seconds: SECONDS,
        drainMs: DRAIN_MS,
        designs: DESIGNS,
        via: VIA,
      },
      rows,
    };
  } catch (e) {
    if (ours) log(`wrangler dev said last:\n${ours.log().slice(-4000)}`);
    throw e;
  } finally {
    await stopAll();
    rmSync(state, { recursive: true, force: true });
  }
}

/** One design at one size: the sockets connect once, then one storm per rate. */
async function stadium({ base, pgid, runtime, n, design, tokens, djToken, figures, log }) {
  const room = await djRoom({ base, djToken, name: `Stadium ${n} ${design}`, log });
  await figures(room.roomId, {
    threshold: design === "relays" ? THRESHOLD : 1_000_000,
    perRelay: PER_RELAY,
  });
  const children = Array.from({ length: PROCS }, () => fork(CLIENT, [], { stdio: "inherit" }));
  const rows = [];
  // File descriptors per process before and after the sockets connect: what a socket costs
  // each hop (the runtime, wrangler's proxy workerd and its node, each client process).
  const holders = () => ({
    runtime: [runtime.pid],
    proxy: runtime.proxyPid ? [runtime.proxyPid] : [],
    wranglerNode: groupProcs(pgid)
      .filter((p) => p.comm === "node")
      .map((p) => p.pid),
    clients: children.map((c) => c.pid),
  });
  const fdsNow = () =>
    Object.fromEntries(
      Object.entries(holders()).map(([k, pids]) => [k, pids.map((p) => fdCount(p) ?? 0)]),
    );
  try {
    const fds0 = fdsNow();
    const t = performance.now();
    const cpuC0 = cpuMs([runtime.pid]);
    const share = (j) =>
      tokens
        .slice(0, n)
        .filter((_, i) => i % PROCS === j)
        .map(room.wsURL);
    const opened = await Promise.all(
      children.map(async (c, j) => {
        const got = next(c, "opened");
        c.send({ open: { urls: share(j) } });
        return got;
      }),
    );
    const states = await Promise.all(children.map((c) => next(c, "state")));
    const sockets = states.reduce((a, b) => a + b.open, 0);
    const connectS = (performance.now() - t) / 1000;
    // Every join is a frame every socket gets and a full state the joiner gets: the connect
    // phase moves O(sockets²) bytes, the storms do not.
    const connect = {
      seconds: r1(connectS),
      megabytesReceived: r1(states.reduce((a, b) => a + b.bytes, 0) / 1e6),
      runtimeCpuS: r1((cpuMs([runtime.pid]) - cpuC0) / 1000),
      clientCpuS: states.map((s) => r1(s.cpuMs / 1000)),
    };
    log(
      `  ${sockets} sockets connected in ${connect.seconds} s (opened ${opened.reduce((a, b) => a + b, 0)}; closed by the server: ${JSON.stringify(states.map((s) => s.closes))}); clients received ${connect.megabytesReceived} MB, runtime CPU ${connect.runtimeCpuS} s, clients ${connect.clientCpuS.join(",")} s`,
    );
    const fds1 = fdsNow();
    const sum = (xs) => xs.reduce((a, b) => a + b, 0);
    const perSocket = Object.fromEntries(
      Object.keys(fds1).map((k) => [k, r2((sum(fds1[k]) - sum(fds0[k])) / (sockets || 1))]),
    );
    const fds = { before: fds0, after: fds1, perSocket };
    log(
      `  file descriptors after connecting: runtime workerd ${fds1.runtime}, proxy workerd ${fds1.proxy}, wrangler node ${sum(fds1.wranglerNode)}, clients ${fds1.clients.join(",")}; per socket ${JSON.stringify(perSocket)}`,
    );
    await room.seat();
    const fig0 = await figures(room.roomId);
    log(`  room holds ${fig0.room.held}, relays ${fig0.room.relayed} on ${fig0.room.links}`);
    for (const rate of RATES) {
      // A fresh song: the counts start at 0 on every socket.
      room.send({ action: "skipSong" });
      await sleep(2000);
      const votes = Math.min(sockets, rate * SECONDS);
      const before = await figures(room.roomId);
      const cpuW0 = cpuMs([runtime.pid]);
      const cpuP0 = runtime.proxyPid ? cpuMs([runtime.proxyPid]) : 0;
      const t0 = performance.timeOrigin + performance.now();
      const perChild = children.map(
        (_, j) => Math.floor(votes / PROCS) + (j < votes % PROCS ? 1 : 0),
      );
      const sent = await Promise.all(
        children.map(async (c, j) => {
          const got = next(c, "stormSent");
          c.send({ storm: { votes: perChild[j], rate: rate / PROCS, expect: votes } });
          return got;
        }),
      );
      const sendTimes = sent.flatMap((s) => s.sent).sort((a, b) => a - b);
      const reports = async () =>
        Promise.all(
          children.map(async (c, j) => {
            const got = next(c, "report");
            c.send({ report: { cpu0: sent[j].cpu0 } });
            return got;
          }),
        );
      let reps = await reports();
      const deadline = Date.now() + DRAIN_MS;
      while (reps.some((r) => r.complete < r.sockets) && Date.now() < deadline) {
        await sleep(500);
        reps = await reports();
      }
      const wall = (performance.timeOrigin + performance.now() - t0) / 1000;
      const cpuW = cpuMs([runtime.pid]) - cpuW0;
      const cpuP = (runtime.proxyPid ? cpuMs([runtime.proxyPid]) : 0) - cpuP0;
      const after = await figures(room.roomId);
      // Vote k is on every socket when the slowest process's slowest socket reached rank k.
      const lat = sendTimes.map((s, k) =>
        reps.every((r) => r.reachCount[k] >= r.sockets)
          ? Math.max(...reps.map((r) => r.reachAt[k])) - s
          : null,
      );
      const lastSeen = Math.max(...reps.flatMap((r) => r.reachAt));
      const complete = reps.every((r) => r.complete >= r.sockets);
      const seqs = new Set(reps.flatMap((r) => r.seqs));
      const finals = new Set(reps.flatMap((r) => r.finals));
      const stormS = (lastSeen - t0) / 1000;
      const ticks = after.room.probedTicks - before.room.probedTicks;
      const row = {
        sockets,
        design,
        rate,
        held: after.room.held,
        relayed: after.room.relayed,
        relays: after.room.links,
        votesSent: votes,
        votesCounted:
          JSON.parse([...finals][0] ?? "{}").likes + JSON.parse([...finals][0] ?? "{}").dislikes,
        completeDelivery: complete,
        votesPerSecond: complete ? r1(votes / stormS) : null,
        latencyMs: latencyStats(lat),
        seqGaps: reps.reduce((a, r) => a + r.gaps, 0),
        sameStateEverywhere: seqs.size === 1 && finals.size === 1,
        frames: after.room.frames - before.room.frames,
        roomTickMs: ticks ? r2((after.room.probedTickMs - before.room.probedTickMs) / ticks) : null,
        roomSendsPerTick:
          design === "relays" ? after.room.held + after.room.links : after.room.held,
        relaySends: after.relays.map((r, i) => r.sends - (before.relays[i]?.sends ?? 0)),
        relayBatchMs: after.relays.map((r, i) => {
          const p = r.probed - (before.relays[i]?.probed ?? 0);
          return p ? r2((r.ms - (before.relays[i]?.ms ?? 0)) / p) : null;
        }),
        via: VIA,
        fdsPerSocket: fds.perSocket,
        connect,
        runtimeFds: fds.after.runtime[0],
        workerdCpuCores: r2(cpuW / 1000 / wall),
        proxyCpuCores: r2(cpuP / 1000 / wall),
        clientCpuCores: reps.map((r) => r2(r.cpuMs / 1000 / wall)),
      };
      rows.push(row);
      log(
        `  ${rate}/s: ${row.votesCounted}/${votes} counted, ${row.votesPerSecond ?? "-"} delivered/s, p50 ${row.latencyMs.p50} ms, p99 ${row.latencyMs.p99} ms, gaps ${row.seqGaps}, same everywhere ${row.sameStateEverywhere}, room tick ${row.roomTickMs} ms, workerd ${row.workerdCpuCores} cores`,
      );
    }
  } finally {
    for (const c of children) c.send({ close: true });
    await room.close();
    await sleep(1000);
  }
  return rows;
}

function printTable(rows, log) {
  const pad = (v, w) => String(v ?? "-").padStart(w);
  log(
    `\nsockets  design  votes/s  room/relayed/relays  sent  counted  delivered/s  p50 ms  p99 ms  gaps  same  room tick ms  sends/tick  workerd cores  client cores  runtime fds`,
  );
  for (const r of rows)
    log(
      `${pad(r.sockets, 7)}  ${pad(r.design, 6)}  ${pad(r.rate, 7)}  ${pad(`${r.held}/${r.relayed}/${r.relays}`, 19)}  ${pad(r.votesSent, 4)}  ${pad(r.votesCounted, 7)}  ${pad(r.votesPerSecond, 11)}  ${pad(r.latencyMs.p50, 6)}  ${pad(r.latencyMs.p99, 6)}  ${pad(r.seqGaps, 4)}  ${pad(r.sameStateEverywhere, 4)}  ${pad(r.roomTickMs, 12)}  ${pad(r.roomSendsPerTick, 10)}  ${pad(r.workerdCpuCores, 13)}  ${pad(r.clientCpuCores.join(","), 12)}  ${pad(r.runtimeFds, 11)}`,
    );
}

// A vote storm in one room under `wrangler dev`, beside a bare partyserver broadcast object
// measured in the same run (issue 4). For each socket count (BENCH_SOCKETS, default
// "200,1000"):
//   ours: N voter sockets in a fresh Room (a song playing, the seeded DJ on stage); every
//         voter votes once (like, dislike, like, ...), then every dislike is changed to a
//         like, at BENCH_RATE votes a second in total. Measured: votes the room counted
//         (its final voteCounts against what was sent), votes per second until every socket
//         had the final counts, and for each vote the time until EVERY socket had seen a
//         frame whose counts include it; frames per socket per second; seq gaps.
//   bare: the same N sockets on bench/bare-room (one frame per message to every socket),
//         the same send rate, BENCH_BARE_MSGS messages (default 300: enough for the
//         percentiles, few enough that a backlog drains in seconds); the same latency, and
//         messages fully delivered per second.
// "Includes it": counts grow by one per vote in a phase, so vote k is in when the count
// reaches its k-th value (an overtaking later vote stands in for an earlier one). Servers
// and sockets share one machine: the numbers compare designs, not a server's capacity.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { importPKCS8, SignJWT } from "jose";
import WebSocket from "ws";
import { migrateAndSeed } from "../scripts/seed.mjs";
import { seedDemoSongs } from "../scripts/seed-songs.mjs";
import { ensureDevVars } from "../scripts/setup.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const COUNTS = (process.env.BENCH_SOCKETS ?? "200,1000").split(",").map(Number).filter(Boolean);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const BARE_MSGS = Number(process.env.BENCH_BARE_MSGS ?? 300);
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 30_000);
const CONNECT_BATCH = 25;
const DJ = {
  uuid: "00000000-0000-4000-8000-000000000003",
  email: "dj.sam@hangout.local",
  password: "user-password",
};
const ENV = {
  ...process.env,
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
    : null;
const r1 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);
function latencyStats(xs) {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  return { n: s.length, p50: r1(pct(s, 50)), p99: r1(pct(s, 99)), max: r1(s[s.length - 1]) };
}

/** CPU this process (the sockets' side) used since `since`, in cores: near 1 means the client may be the limit. */
function cpuShare(since, t0) {
  const { user, system } = process.cpuUsage(since);
  return Math.round(((user + system) / 1000 / (performance.now() - t0)) * 100) / 100;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });

/** `wrangler dev` on a free port with a fresh state dir; resolves once `ready(base)` answers. */
async function startWrangler(label, args, ready) {
  const state = `${ROOT}.wrangler/bench-${label}-${process.pid}`;
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  return { state, ...(await launch(label, args, state, ready)) };
}
/** Every wrangler this run started, so a failure anywhere still stops them all. */
const children = new Set();
async function launch(label, args, state, ready) {
  const port = await freePort();
  const inspector = await freePort();
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      ...args,
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: ROOT,
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  children.add(child);
  let log = "";
  child.stdout.on("data", (d) => (log = (log + d).slice(-20_000)));
  child.stderr.on("data", (d) => (log = (log + d).slice(-20_000)));
  const base = `http://127.0.0.1:${port}`;
  const proc = { child, base, port, log: () => log };
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if (await ready(base)) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      stop(proc);
      throw new Error(`${label}: wrangler dev did not start:\n${log.slice(-3000)}`);
    }
    await sleep(300);
  }
  return proc;
}
/** SIGTERM to the whole process group (npx, wrangler, workerd), SIGKILL 3 s later if any is left. */
function stop(proc, signal = "SIGTERM") {
  if (!proc?.child?.pid) return;
  try {
    process.kill(-proc.child.pid, signal);
  } catch {
    return; /* gone */
  }
  if (signal === "SIGTERM") setTimeout(() => stop(proc, "SIGKILL"), 3000).unref();
}
async function stopAll() {
  for (const child of children) stop({ child });
  await sleep(3000);
  for (const child of children) stop({ child }, "SIGKILL");
  children.clear();
}

async function api(base, method, path, { token, json } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(json ? { "content-type": "application/json" } : {}),
    },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Opens `n` sockets to `urlOf(i)`, CONNECT_BATCH at a time; returns the ones that opened. */
async function openSockets(n, urlOf, onMessage, log) {
  const socks = [];
  const errors = new Map();
  for (let i = 0; i < n; i += CONNECT_BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + CONNECT_BATCH); j++) {
      batch.push(
        new Promise((resolve) => {
          const ws = new WebSocket(urlOf(j), { perMessageDeflate: false });
          const sock = { i: j, ws };
          ws.on("message", (data) => onMessage(sock, data.toString()));
          const to = setTimeout(() => {
            errors.set("timeout", (errors.get("timeout") ?? 0) + 1);
            ws.terminate();
            resolve(null);
          }, 20_000);
          ws.once("open", () => {
            clearTimeout(to);
            resolve(sock);
          });
          ws.once("error", (e) => {
            clearTimeout(to);
            errors.set(e.message, (errors.get(e.message) ?? 0) + 1);
            resolve(null);
          });
        }),
      );
    }
    for (const s of await Promise.all(batch)) if (s) socks.push(s);
  }
  if (errors.size)
    log(
      `  ${n - socks.length} of ${n} sockets failed to open: ${[...errors].map(([m, c]) => `${c}x ${m}`).join("; ")}`,
    );
  return { socks, errors: Object.fromEntries(errors) };
}
const closeAll = (socks) => socks.forEach((s) => s.ws.terminate());

/** Sends `count` items at `rate` per second: `sendOne(k)` for k = 0..count-1. */
async function paced(count, rate, sendOne) {
  const t0 = performance.now();
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
    while (sent < due) sendOne(sent++);
    if (sent < count) await sleep(5);
  }
  return (performance.now() - t0) / 1000;
}

async function waitFor(cond, ms) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

// ---- ours ----------------------------------------------------------------------------------

async function benchOurs({ base, n, signUser, djToken, log }) {
  const roomId = randomUUID();
  const wsURL = (token) =>
    `${base.replace("http", "ws")}/parties/room/${roomId}?token=${encodeURIComponent(token)}`;

  // The DJ: takes a seat, and the room starts the first song of his queue.
  let djState = null;
  const {
    socks: [dj],
  } = await openSockets(
    1,
    () => wsURL(djToken),
    (_s, text) => {
      const m = JSON.parse(text);
      if (m.name === "roomState") djState = m.state;
      else if (m.name === "error") log(`  dj: error ${JSON.stringify(m.params)}`);
    },
    log,
  );
  if (!dj) throw new Error("the DJ socket did not open");
  await waitFor(() => djState, 10_000);

  // The voters: each holds seq and the counts, applying every frame.
  const phase = { id: 0, metric: () => 0, base: 0, reach: [] };
  let gaps = 0;
  let frames = 0;
  let errors = 0;
  const errorSamples = new Set();
  const onMessage = (s, text) => {
    const m = JSON.parse(text);
    const now = performance.now();
    if (m.name === "roomState") {
      s.seq = m.seq;
      s.counts = { ...m.state.voteCounts };
      s.playId = m.state.nowPlaying?.playId;
    } else if (m.statePatch) {
      if (s.seq === undefined) return; // before its full state: the room never sends this
      if (m.seq !== s.seq + 1) {
        gaps++;
        s.seq = undefined;
        s.ws.send(JSON.stringify({ action: "joinRoom" }));
        return;
      }
      s.seq = m.seq;
      if (phase.id) frames++;
      for (const op of m.statePatch) {
        if (op.path === "/voteCounts") s.counts = { ...op.value };
        else if (op.path.startsWith("/voteCounts/"))
          s.counts[op.path.slice(12)] = op.op === "remove" ? 0 : op.value;
        else if (op.path.startsWith("/nowPlaying")) s.songChanged = true;
      }
    } else if (m.name === "error") {
      errors++;
      if (errorSamples.size < 3) errorSamples.add(m.params.message);
      return;
    } else return;
    if (!phase.id || !s.counts) return;
    // Every value the phase's number passed on this socket: the votes this socket now has.
    const v = phase.metric(s.counts) - phase.base;
    const from = s.seen ?? 0;
    for (let k = from + 1; k <= Math.min(v, phase.reach.length); k++) {
      const r = phase.reach[k - 1];
      r.max = Math.max(r.max, now);
      r.sockets++;
    }
    if (v > from) s.seen = v;
  };
  const tokens = await Promise.all(Array.from({ length: n }, () => signUser(randomUUID())));
  let t = performance.now();
  const { socks, errors: openErrors } = await openSockets(
    n,
    (i) => wsURL(tokens[i]),
    onMessage,
    log,
  );
  const connectS = (performance.now() - t) / 1000;
  // Settled: every socket has the full state and the newest seq.
  await waitFor(() => {
    const seqs = new Set(socks.map((s) => s.seq));
    return socks.length && seqs.size === 1 && !seqs.has(undefined);
  }, 60_000);
  await sleep(300);
  log(`  ${socks.length} voters connected in ${connectS.toFixed(1)} s`);
  if (!socks.length) return { sockets: 0, openErrors };

  // The DJ takes his seat only now, so the song (the demo songs are ~30 s) covers the storm.
  await waitFor(() => djState, 10_000);
  dj.ws.send(JSON.stringify({ action: "addDj" }));
  let asked = 0;
  const playing = await waitFor(() => {
    if (djState?.nowPlaying) return true;
    if (Date.now() - asked > 500) {
      asked = Date.now();
      dj.ws.send(JSON.stringify({ action: "joinRoom" }));
    }
    return false;
  }, 15_000);
  if (!playing)
    throw new Error(
      `no song started after addDj (state: ${JSON.stringify(djState).slice(0, 400)})`,
    );
  const songLeftS = (djState.nowPlaying.endTime - Date.now()) / 1000;
  log(
    `  room ${roomId}: "${djState.nowPlaying.song.trackName}" playing, ${songLeftS.toFixed(0)} s left`,
  );

  await waitFor(() => socks.every((s) => s.counts && s.songChanged), 10_000);
  for (const s of socks) s.songChanged = false;
  const m = socks.length;
  const runPhase = async (id, metric, votes) => {
    phase.id = id;
    phase.metric = metric;
    phase.base = metric(socks[0].counts);
    phase.reach = votes.map(() => ({ sent: 0, max: 0, sockets: 0 }));
    for (const s of socks) s.seen = 0;
    const t0 = performance.now();
    const sendS = await paced(votes.length, RATE, (k) => {
      phase.reach[k].sent = performance.now();
      votes[k]();
    });
    const complete = await waitFor(() => phase.reach.every((r) => r.sockets >= m), DRAIN_MS);
    const lastSeen = Math.max(...phase.reach.map((r) => r.max));
    const lat = phase.reach.map((r) => (r.sockets >= m ? r.max - r.sent : null));
    return {
      t0,
      sendS,
      complete,
      lastSeen,
      lat,
      votes: votes.length,
      fullyDelivered: phase.reach.filter((r) => r.sockets >= m).length,
    };
  };
  // Phase 1: every voter's first vote, like/dislike alternating (likes + dislikes grow by one).
  const framesBefore = frames;
  const cpu0 = process.cpuUsage();
  const p1 = await runPhase(
    1,
    (c) => c.likes + c.dislikes,
    socks.map(
      (s) => () =>
        s.ws.send(JSON.stringify({ action: "voteOnSong", songVotes: { like: s.i % 2 === 0 } })),
    ),
  );
  // Phase 2: every dislike changed to a like (likes grow by one; no auto-skip, dislikes shrink).
  const flippers = socks.filter((s) => s.i % 2 === 1);
  const p2 = await runPhase(
    2,
    (c) => c.likes,
    flippers.map(
      (s) => () => s.ws.send(JSON.stringify({ action: "voteOnSong", songVotes: { like: true } })),
    ),
  );
  const stormS = (Math.max(p2.lastSeen, p1.lastSeen) - p1.t0) / 1000;
  const framesStorm = frames - framesBefore;
  const clientCpu = cpuShare(cpu0, p1.t0);
  phase.id = 0;

  // The room's own final counts, asked for afresh.
  let final = null;
  socks[0].ws.once("message", (d) => {
    const msg = JSON.parse(d.toString());
    if (msg.name === "roomState") final = msg.state.voteCounts;
  });
  socks[0].ws.send(JSON.stringify({ action: "joinRoom" }));
  await waitFor(() => final, 5_000);
  const sent = p1.votes + p2.votes;
  const expected = { likes: m, dislikes: 0 };
  // Counted: each first vote that the room holds, plus each change it applied.
  const firstLikes = m - flippers.length;
  const accepted = final
    ? Math.min(p1.votes, final.likes + final.dislikes) +
      Math.max(0, Math.min(p2.votes, final.likes - firstLikes))
    : null;
  const songChanged = socks.some((s) => s.songChanged);
  closeAll([...socks, dj]);
  return {
    sockets: m,
    openErrors,
    connectSeconds: r1(connectS),
    votesSent: sent,
    finalVoteCounts: final,
    expectedVoteCounts: expected,
    votesAccepted: accepted,
    errorsReplied: errors,
    errorSamples: [...errorSamples],
    songChangedDuringStorm: songChanged,
    sendSeconds: r1(p1.sendS + p2.sendS),
    offeredVotesPerSecond: r1(sent / (p1.sendS + p2.sendS)),
    // Accepted votes over the time from the first vote sent until every socket had seen the last.
    votesPerSecond: accepted != null && p1.complete && p2.complete ? r1(accepted / stormS) : null,
    completeDelivery: p1.complete && p2.complete,
    latencyMs: latencyStats([...p1.lat, ...p2.lat]),
    latencyFirstVotesMs: latencyStats(p1.lat),
    // Like for like with the bare run, which sends only BARE_MSGS messages: the first that many votes.
    latencyFirstBareMsgsVotesMs: latencyStats(p1.lat.slice(0, BARE_MSGS)),
    latencyChangedVotesMs: latencyStats(p2.lat),
    framesPerSocketPerSecond: r1(framesStorm / m / stormS),
    seqGaps: gaps,
    clientCpuCores: clientCpu,
  };
}

// ---- bare ----------------------------------------------------------------------------------

async function benchBare({ base, n, log }) {
  const url = `${base.replace("http", "ws")}/parties/bare/${randomUUID()}`;
  const recv = new Uint32Array(BARE_MSGS);
  const max = new Float64Array(BARE_MSGS);
  const sentAt = new Float64Array(BARE_MSGS);
  let frames = 0;
  let live = false;
  let warm = 0;
  const onMessage = (_s, text) => {
    if (text === "warm") return void warm++;
    if (!live) return;
    const k = Number(text.slice(2, text.indexOf(":", 2)));
    frames++;
    recv[k]++;
    max[k] = performance.now();
  };
  let t = performance.now();
  const { socks, errors: openErrors } = await openSockets(n, () => url, onMessage, log);
  const connectS = (performance.now() - t) / 1000;
  log(`  ${socks.length} sockets connected in ${connectS.toFixed(1)} s`);
  if (!socks.length) return { sockets: 0, openErrors };
  const m = socks.length;
  // Every socket is known to the object before the clock starts.
  socks[0].ws.send("warm");
  await waitFor(() => warm >= m, 20_000);
  live = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const sendS = await paced(BARE_MSGS, RATE, (k) => {
    sentAt[k] = performance.now();
    socks[k % m].ws.send(`m:${k}:${"x".repeat(40)}`);
  });
  const complete = await waitFor(() => recv.every((c) => c >= m), DRAIN_MS);
  const done = [...recv].map((c, k) => (c >= m ? k : -1)).filter((k) => k >= 0);
  const lastSeen = Math.max(...max);
  const lat = done.map((k) => max[k] - sentAt[k]);
  const seconds = (lastSeen - t0) / 1000;
  const clientCpu = cpuShare(cpu0, t0);
  closeAll(socks);
  return {
    sockets: m,
    openErrors,
    connectSeconds: r1(connectS),
    msgsSent: BARE_MSGS,
    msgsFullyDelivered: done.length,
    completeDelivery: complete,
    sendSeconds: r1(sendS),
    offeredMsgsPerSecond: r1(BARE_MSGS / sendS),
    msgsPerSecond: r1(done.length / seconds),
    latencyMs: latencyStats(lat),
    framesPerSocketPerSecond: r1(frames / m / seconds),
    clientCpuCores: clientCpu,
  };
}

// ---- run -----------------------------------------------------------------------------------

export default async function run({ log = console.log } = {}) {
  ensureDevVars();
  const devVars = readFileSync(`${ROOT}.dev.vars`, "utf8");
  const pem = /^JWT_PRIVATE_KEY=(.*)$/m
    .exec(devVars)?.[1]
    ?.replace(/^"|"$/g, "")
    .replace(/\\n/g, "\n");
  if (!pem) throw new Error(".dev.vars has no JWT_PRIVATE_KEY");
  const key = await importPKCS8(pem, "RS256");
  // Voters need no account: the gateway only verifies a room token's signature.
  const signUser = (sub) =>
    new SignJWT({ type: "user", roles: ["user"], sv: 0 })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setSubject(sub)
      .setIssuer("hangout/user-service")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key);

  const procs = [];
  const onSignal = (code) => () => {
    for (const child of children) stop({ child }, "SIGKILL");
    process.exit(code);
  };
  process.once("SIGINT", onSignal(130));
  process.once("SIGTERM", onSignal(143));
  try {
    let t = performance.now();
    const oursState = `${ROOT}.wrangler/bench-rooms-${process.pid}`;
    rmSync(oursState, { recursive: true, force: true });
    mkdirSync(oursState, { recursive: true });
    migrateAndSeed({ persistTo: oursState, quiet: true });
    const started = await Promise.allSettled([
      launch(
        "ours",
        [],
        oursState,
        async (b) => (await fetch(`${b}/api/user-service/info-admin/user-service-status`)).ok,
      ),
      startWrangler(
        "bare",
        ["--config", "bench/bare-room/wrangler.toml"],
        async (b) => (await fetch(b)).status === 404,
      ),
    ]);
    for (const s of started) if (s.status === "fulfilled") procs.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const [ours, bare] = procs;
    log(
      `wrangler dev up: ours ${ours.base}, bare ${bare.base} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );

    // The DJ's queue: every demo song (each socket count gets a fresh room and a fresh song).
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

    const rows = [];
    for (const n of COUNTS) {
      log(`-- ${n} sockets, ${RATE} votes/s --`);
      const o = await benchOurs({ base: ours.base, n, signUser, djToken, log });
      await sleep(1000);
      log(`  bare (${BARE_MSGS} messages):`);
      const b = await benchBare({ base: bare.base, n, log });
      await sleep(1000);
      const ratio = (x, y) => (x != null && y ? Math.round((x / y) * 100) / 100 : null);
      rows.push({
        sockets: n,
        ours: o,
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

    const pad = (v, w) => String(v ?? "-").padStart(w);
    log(
      `\nsockets  impl   opened  sent  counted  offered/s  delivered/s   p50 ms   p99 ms  frames/sock/s  gaps  complete  client cpu`,
    );
    for (const r of rows) {
      const o = r.ours;
      const b = r.bare;
      log(
        `${pad(r.sockets, 7)}  ours  ${pad(o.sockets, 7)} ${pad(o.votesSent, 5)} ${pad(o.votesAccepted, 8)} ${pad(o.offeredVotesPerSecond, 10)} ${pad(o.votesPerSecond, 12)} ${pad(o.latencyMs?.p50, 8)} ${pad(o.latencyMs?.p99, 8)} ${pad(o.framesPerSocketPerSecond, 14)} ${pad(o.seqGaps, 5)}  ${pad(o.completeDelivery, 8)}  ${pad(o.clientCpuCores, 10)}`,
      );
      log(
        `${pad(r.sockets, 7)}  bare  ${pad(b.sockets, 7)} ${pad(b.msgsSent, 5)} ${pad(b.msgsFullyDelivered, 8)} ${pad(b.offeredMsgsPerSecond, 10)} ${pad(b.msgsPerSecond, 12)} ${pad(b.latencyMs?.p50, 8)} ${pad(b.latencyMs?.p99, 8)} ${pad(b.framesPerSocketPerSecond, 14)} ${pad("", 5)}  ${pad(b.completeDelivery, 8)}  ${pad(b.clientCpuCores, 10)}`,
      );
      log(
        `${pad(r.sockets, 7)}  ours/bare: throughput x${r.ratio.throughput ?? "-"}, p50 x${r.ratio.p50 ?? "-"}, p99 x${r.ratio.p99 ?? "-"}` +
          ` (ours' first ${BARE_MSGS} votes only: p50 ${o.latencyFirstBareMsgsVotesMs?.p50 ?? "-"} ms x${r.ratio.p50SameCount ?? "-"}, p99 ${o.latencyFirstBareMsgsVotesMs?.p99 ?? "-"} ms x${r.ratio.p99SameCount ?? "-"})`,
      );
    }
    return {
      config: { sockets: COUNTS, rate: RATE, bareMsgs: BARE_MSGS, drainMs: DRAIN_MS },
      rows,
    };
  } finally {
    await stopAll();
    for (const p of procs) if (p.state) rmSync(p.state, { recursive: true, force: true });
    rmSync(`${ROOT}.wrangler/bench-rooms-${process.pid}`, { recursive: true, force: true });
  }
}

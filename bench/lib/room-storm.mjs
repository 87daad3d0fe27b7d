// The vote storm of bench/rooms.bench.mjs (see its header for what is measured): `benchOurs`
// in a real Room under `wrangler dev`, `benchBare` on bench/bare-room; and `djRoom`, a fresh
// room with the seeded DJ's song playing, which the crowd figures use too. Not a benchmark
// itself (bench/run.mjs runs only *.bench.mjs files).
import { randomUUID } from "node:crypto";
import { api } from "./wrangler.mjs";
import {
  closeAll,
  cpuShare,
  latencyStats,
  openSockets,
  paced,
  r1,
  sleep,
  waitFor,
} from "./sockets.mjs";

/**
 * A fresh room made through the room-service by the DJ (its owner; auto-skip off, so a
 * storm of dislikes never ends the song), the DJ's socket in it. `seat()` takes the seat and
 * resolves once a song plays; `close()` deletes the room (every socket closed at once, no
 * 30 s grace left running behind the next measurement).
 */
export async function djRoom({ base, djToken, name, log }) {
  const room = await api(base, "POST", "/api/room-service/rooms/infrastructure", {
    token: djToken,
    json: { name: `${name} ${Date.now().toString(36)}`, autoSkipRatio: 0 },
  });
  const roomId = room.uuid;
  const wsURL = (token) =>
    `${base.replace("http", "ws")}/parties/room/${roomId}?token=${encodeURIComponent(token)}`;
  let djState = null;
  let closing = false;
  const {
    socks: [dj],
  } = await openSockets(
    1,
    () => wsURL(djToken),
    (_s, text) => {
      const m = JSON.parse(text);
      if (m.name === "roomState") djState = m.state;
      else if (m.name === "error" && !closing) log(`  dj: error ${JSON.stringify(m.params)}`);
    },
    log,
  );
  if (!dj) throw new Error("the DJ socket did not open");
  await waitFor(() => djState, 10_000);
  return {
    roomId,
    wsURL,
    state: () => djState,
    /** A frame from the DJ's socket (the stadium bench skips to a fresh song). */
    send: (m) => dj.ws.send(JSON.stringify(m)),
    async seat() {
      dj.ws.send(JSON.stringify({ action: "addDj" }));
      let asked = 0;
      const playing = await waitFor(() => {
        if (djState?.nowPlaying) return true;
        if (Date.now() - asked > 1000) {
          asked = Date.now();
          dj.ws.send(JSON.stringify({ action: "joinRoom" }));
        }
        return false;
      }, 15_000);
      if (!playing)
        throw new Error(
          `no song started after addDj (state: ${JSON.stringify(djState).slice(0, 400)})`,
        );
      const left = (djState.nowPlaying.endTime - Date.now()) / 1000;
      log(
        `  room ${roomId}: "${djState.nowPlaying.song.trackName}" playing, ${left.toFixed(0)} s left`,
      );
    },
    async close() {
      closing = true;
      await api(base, "DELETE", `/api/room-service/rooms/${roomId}/infrastructure`, {
        token: djToken,
      }).catch((e) => log(`  room ${roomId}: delete failed: ${e.message}`));
      closeAll([dj]);
    },
  };
}

/**
 * A tt.live bot's frames (shared/protocol-ttfm.ts) as the browsers' loop below reads them:
 * pongs to pings, the join answer as a full state, each user frame's patch as a frame.
 * Answers the browser-shaped message, or null for nothing to count.
 */
function fromBot(s, text) {
  const m = JSON.parse(text);
  if (typeof m === "string") {
    if (m.startsWith("primus::ping::")) s.ws.send(JSON.stringify(m.replace("ping", "pong")));
    return null;
  }
  if (m.context === "response") {
    if (m.error) return { name: "error", params: { message: m.error } };
    if (m.state) return { name: "roomState", state: m.state, seq: 0 };
    return null;
  }
  if (m.context === "user" && m.message?.statePatch)
    // Bots have no seq: the bridge delivers every frame in order, so each is the next.
    return { statePatch: m.message.statePatch, seq: (s.seq ?? 0) + 1 };
  return null;
}

let botMessageId = 0;
/** A bot's request (the room names it by the uuid its join answered, as ttfm-socket does). */
const botRequest = (roomUuid, params) =>
  JSON.stringify({ event: "action", params: { ...params, roomUuid }, messageId: ++botMessageId });

/**
 * ours: `n` voter sockets (accounts `voterTokens[i]`) in a fresh room with a song playing;
 * every voter votes once (like, dislike, like, ...), then every dislike becomes a like, at
 * `rate` votes a second in total. `halfBots`: every odd voter is a tt.live bot at /primus
 * (issue 17), the others browsers; the same storm, the same measures.
 */
export async function benchOurs({
  base,
  n,
  rate,
  voterTokens,
  djToken,
  bareMsgs,
  drainMs,
  log,
  halfBots = false,
}) {
  const room = await djRoom({ base, djToken, name: `Bench storm ${n}x${rate}`, log });
  const isBot = (i) => halfBots && i % 2 === 1;

  // The voters: each holds seq and the counts, applying every frame.
  const phase = { id: 0, metric: () => 0, base: 0, reach: [] };
  let gaps = 0;
  let frames = 0;
  let errors = 0;
  const errorSamples = new Set();
  const onMessage = (s, text) => {
    const m = isBot(s.i) ? fromBot(s, text) : JSON.parse(text);
    if (!m) return;
    const now = performance.now();
    if (m.name === "roomState") {
      s.seq = m.seq;
      s.counts = { ...m.state.voteCounts };
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
  let t = performance.now();
  const { socks, errors: openErrors } = await openSockets(
    n,
    (i) =>
      isBot(i)
        ? `${base.replace("http", "ws")}/primus?token=${encodeURIComponent(voterTokens[i])}`
        : room.wsURL(voterTokens[i]),
    onMessage,
    log,
  );
  // A bot is in no room until its joinRoom (the bridge then opens its room socket).
  for (const s of socks) if (isBot(s.i)) s.ws.send(botRequest(room.roomId, { action: "joinRoom" }));
  const connectS = (performance.now() - t) / 1000;
  // Settled: every socket has the full state and the newest seq.
  await waitFor(() => {
    const seqs = new Set(socks.filter((s) => !isBot(s.i)).map((s) => s.seq));
    const botsIn = socks.every((s) => !isBot(s.i) || s.counts);
    return socks.length && botsIn && seqs.size === 1 && !seqs.has(undefined);
  }, 60_000);
  await sleep(300);
  log(`  ${socks.length} voters connected in ${connectS.toFixed(1)} s`);
  if (!socks.length) return (await room.close(), { sockets: 0, openErrors });

  // The DJ takes his seat only now, so the song (the demo songs are ~30 s) covers the storm.
  await room.seat();
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
    const sendS = await paced(votes.length, rate, (k) => {
      phase.reach[k].sent = performance.now();
      votes[k]();
    });
    const complete = await waitFor(() => phase.reach.every((r) => r.sockets >= m), drainMs);
    const lastSeen = Math.max(...phase.reach.map((r) => r.max));
    const lat = phase.reach.map((r) => (r.sockets >= m ? r.max - r.sent : null));
    return { t0, sendS, complete, lastSeen, lat, votes: votes.length };
  };
  // Phase 1: every voter's first vote, like/dislike alternating (likes + dislikes grow by one).
  const framesBefore = frames;
  const cpu0 = process.cpuUsage();
  const vote = (s, like) => () =>
    s.ws.send(
      isBot(s.i)
        ? botRequest(room.roomId, { action: "voteOnSong", songVotes: { like } })
        : JSON.stringify({ action: "voteOnSong", songVotes: { like } }),
    );
  const p1 = await runPhase(
    1,
    (c) => c.likes + c.dislikes,
    socks.map((s) => vote(s, s.i % 2 === 0)),
  );
  // Phase 2: every dislike changed to a like (likes grow by one; no auto-skip, dislikes shrink).
  const flippers = socks.filter((s) => s.i % 2 === 1);
  const p2 = await runPhase(
    2,
    (c) => c.likes,
    flippers.map((s) => vote(s, true)),
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
  // Counted: each first vote that the room holds, plus each change it applied.
  const firstLikes = m - flippers.length;
  const accepted = final
    ? Math.min(p1.votes, final.likes + final.dislikes) +
      Math.max(0, Math.min(p2.votes, final.likes - firstLikes))
    : null;
  const songChanged = socks.some((s) => s.songChanged);
  closeAll(socks);
  await room.close();
  return {
    sockets: m,
    bots: socks.filter((s) => isBot(s.i)).length,
    openErrors,
    connectSeconds: r1(connectS),
    votesSent: sent,
    finalVoteCounts: final,
    expectedVoteCounts: { likes: m, dislikes: 0 },
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
    // Like for like with the bare run, which sends only bareMsgs messages: the first that many votes.
    latencyFirstBareMsgsVotesMs: latencyStats(p1.lat.slice(0, bareMsgs)),
    latencyChangedVotesMs: latencyStats(p2.lat),
    framesPerSocketPerSecond: r1(framesStorm / m / stormS),
    seqGaps: gaps,
    clientCpuCores: clientCpu,
  };
}

/** bare: `n` sockets on bench/bare-room (one frame per message to every socket), `msgs` messages at `rate`. */
export async function benchBare({ base, n, rate, msgs, drainMs, log }) {
  const url = `${base.replace("http", "ws")}/parties/bare/${randomUUID()}`;
  const recv = new Uint32Array(msgs);
  const max = new Float64Array(msgs);
  const sentAt = new Float64Array(msgs);
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
  const sendS = await paced(msgs, rate, (k) => {
    sentAt[k] = performance.now();
    socks[k % m].ws.send(`m:${k}:${"x".repeat(40)}`);
  });
  const complete = await waitFor(() => recv.every((c) => c >= m), drainMs);
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
    msgsSent: msgs,
    msgsFullyDelivered: done.length,
    completeDelivery: complete,
    sendSeconds: r1(sendS),
    offeredMsgsPerSecond: r1(msgs / sendS),
    msgsPerSecond: r1(done.length / seconds),
    latencyMs: latencyStats(lat),
    framesPerSocketPerSecond: r1(frames / m / seconds),
    clientCpuCores: clientCpu,
  };
}

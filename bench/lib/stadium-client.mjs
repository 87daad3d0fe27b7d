// One client process of bench/stadium.bench.mjs (forked with IPC): it holds its share of
// the listener sockets, applies every frame (seq and vote counts, as a browser does), votes
// when told and reports back. Several of these spread the sockets' CPU over processes, so the
// load generator is not the limit. Not a benchmark itself (bench/run.mjs runs *.bench.mjs).
//
// Messages from the parent: {open: {urls}}, {storm: {id, votes, rate}} (votes: how many this
// process sends, like/dislike alternating, from its sockets in order), {report: {id}},
// {close}. To the parent: {opened}, {state}, {stormSent}, {report}.
import { cpuUsage } from "node:process";
import { openSockets, sleep } from "./sockets.mjs";

const now = () => performance.timeOrigin + performance.now();
let socks = [];
let gaps = 0;
let frames = 0;
/** Per value v of likes + dislikes: how many of our sockets reached it, and when the last did. */
let reach = { count: new Uint32Array(0), at: new Float64Array(0) };

/** Bytes of frames received, for the connect phase's figure (every join is a frame to all). */
let received = 0;

const SMALL = 8192;
const SEQ = /"seq":(\d+)/;

/**
 * The message, or for a big one only what this client reads from it (its name, seq and vote
 * counts). At 10,000 sockets the connect phase sends every socket every other user's join
 * (tens of GB in all, O(sockets²)) and each joiner a full state of megabytes: parsing all of
 * it would make the load generator the limit, and this client never reads presence. A
 * frame that touches /voteCounts is always parsed whole. The bytes still arrive in full.
 */
function read(text) {
  if (text.length <= SMALL || text.includes('"/voteCounts')) return JSON.parse(text);
  // Both end with their seq: {name, statePatch, seq} and {name, state, seq, serverTime}.
  const seq = Number(SEQ.exec(text.slice(-80))?.[1]);
  if (text.startsWith('{"name":"roomState"')) {
    const at = text.indexOf('"voteCounts":{');
    if (at === -1) return JSON.parse(text);
    const from = at + '"voteCounts":'.length;
    const counts = JSON.parse(text.slice(from, text.indexOf("}", from) + 1));
    return { name: "roomState", seq, state: { voteCounts: counts } };
  }
  if (/^\{"name":"[A-Za-z]+","statePatch":/.test(text.slice(0, 40))) return { statePatch: [], seq };
  return JSON.parse(text);
}

function onMessage(s, text) {
  received += text.length;
  const m = read(text);
  if (m.name === "roomState") {
    s.seq = m.seq;
    s.counts = { ...m.state.voteCounts };
  } else if (m.statePatch) {
    if (s.seq === undefined) return;
    if (m.seq !== s.seq + 1) {
      // A gap: resync as the browser does (joinRoom, the next roomState replaces the state).
      gaps++;
      s.seq = undefined;
      s.ws.send(JSON.stringify({ action: "joinRoom" }));
      return;
    }
    s.seq = m.seq;
    frames++;
    for (const op of m.statePatch) {
      if (op.path === "/voteCounts") s.counts = { ...op.value };
      else if (op.path.startsWith("/voteCounts/"))
        s.counts[op.path.slice(12)] = op.op === "remove" ? 0 : op.value;
    }
  } else return;
  if (!s.counts) return;
  const v = s.counts.likes + s.counts.dislikes;
  const from = s.seen ?? 0;
  const t = now();
  for (let k = from + 1; k <= Math.min(v, reach.count.length); k++) {
    reach.count[k - 1]++;
    reach.at[k - 1] = Math.max(reach.at[k - 1], t);
  }
  // A new song clears the counts: this socket starts from 0 again.
  s.seen = v < from ? v : Math.max(from, v);
}

process.on("message", async (msg) => {
  if (msg.open) {
    const cpu0 = cpuUsage();
    received = 0;
    const r = await openSockets(
      msg.open.urls.length,
      (i) => msg.open.urls[i],
      onMessage,
      () => {},
    );
    socks = r.socks;
    const closes = {};
    for (const s of socks)
      s.ws.once("close", (code) => {
        closes[code] = (closes[code] ?? 0) + 1;
      });
    process.send({ opened: socks.length, errors: r.errors });
    // Every open socket has its full state (one closed by the server is reported, not awaited).
    // A socket the dev server accepted but never answered (it ran out of file descriptors)
    // is dropped after a minute and counted as not opened.
    const until = Date.now() + 60_000;
    while (!socks.every((s) => s.counts || s.ws.readyState !== 1) && Date.now() < until)
      await sleep(50);
    for (const s of socks) if (!s.counts) s.ws.terminate();
    socks = socks.filter((s) => s.counts && s.ws.readyState === 1);
    const u = cpuUsage(cpu0);
    process.send({
      state: { open: socks.length, closes, bytes: received, cpuMs: (u.user + u.system) / 1000 },
    });
  } else if (msg.storm) {
    const { votes, rate, expect } = msg.storm;
    reach = { count: new Uint32Array(expect), at: new Float64Array(expect) };
    for (const s of socks) s.seen = s.counts.likes + s.counts.dislikes;
    gaps = 0;
    frames = 0;
    const cpu0 = cpuUsage();
    const t0 = now();
    const sent = [];
    let k = 0;
    while (k < votes) {
      const due = Math.min(votes, Math.floor(((now() - t0) * rate) / 1000) + 1);
      for (; k < due; k++) {
        sent.push(now());
        socks[k % socks.length].ws.send(
          JSON.stringify({ action: "voteOnSong", songVotes: { like: k % 2 === 0 } }),
        );
      }
      if (k < votes) await sleep(5);
    }
    process.send({ stormSent: { sent, cpu0, t0 } });
  } else if (msg.report) {
    const seqs = new Set(socks.map((s) => s.seq));
    const finals = new Set(socks.map((s) => JSON.stringify(s.counts)));
    process.send({
      report: {
        sockets: socks.length,
        complete: socks.filter((s) => s.seen >= reach.count.length).length,
        reachCount: [...reach.count],
        reachAt: [...reach.at],
        gaps,
        frames,
        seqs: [...seqs],
        finals: [...finals],
        cpuMs: (() => {
          const u = cpuUsage(msg.report.cpu0);
          return (u.user + u.system) / 1000;
        })(),
      },
    });
  } else if (msg.close) {
    for (const s of socks) s.ws.terminate();
    process.exit(0);
  }
});

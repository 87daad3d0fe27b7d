// The crowd figures of bench/rooms.bench.mjs (issue 11): a room's full-state size and what a
// vote costs at 1,000 and 10,000 users, without that many sockets. Users and votes come
// through the room-service's dev route (POST /api/room-service/dev/rooms/{uuid}/crowd,
// durable/room/crowd.ts; the bench sends the service key): synthetic present users, and K
// votes by K distinct users through the code a socket's vote runs, then the tick. Each size
// gets a fresh room (the seeded DJ's song playing, the DJ's socket the only one).
// The clock stands still inside a Worker request, so the route answers no time: each
// repetition times one call with K votes and one with 0 (in alternating order), and a vote
// costs (t_K - t_0) / K, the median over the repetitions. The voters are the first K
// synthetic users; an untimed first round gives them their first votes, and each timed round
// changes every one of them (like for dislike and back), so a 1,000-user room gives as many
// timed votes as a 10,000-user one. A like's points go out through the room's outbox after
// the call, asynchronously: not timed (an untimed `settle` call waits for them before each
// timed call, so that sending never overlaps one). Not a benchmark itself (bench/run.mjs
// runs only *.bench.mjs files).
import { median, r1 } from "./sockets.mjs";
import { djRoom } from "./room-storm.mjs";

const ms3 = (v) => (v == null ? null : Math.round(v * 1000) / 1000);

/** The figures at each size in `sizes`, each in a fresh room; a size that fails is tried once more. */
export async function benchCrowd({ sizes, log, ...opts }) {
  const rows = [];
  for (const users of sizes) {
    for (let attempt = 1; ; attempt++) {
      try {
        rows.push(await oneRoom({ ...opts, users, log }));
        break;
      } catch (e) {
        // Under load the local runtime has been seen to restart mid-call (wrangler answers
        // 503 "Your worker restarted mid-request"); the object then starts afresh, so the
        // size is measured again in a new room rather than in a room that rebooted.
        log(`  ${users} users, attempt ${attempt} failed: ${e.message}`);
        if (attempt === 2) {
          rows.push({ users, error: e.message });
          break;
        }
      }
    }
  }
  return rows;
}

async function oneRoom({ base, serviceKey, djToken, users, votes, reps, log }) {
  const room = await djRoom({ base, djToken, name: `Bench crowd ${users}`, log });
  const crowd = async (body) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/room-service/dev/rooms/${room.roomId}/crowd`, {
      method: "POST",
      headers: { "x-service-key": serviceKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok) throw new Error(`crowd ${JSON.stringify(body)}: ${res.status} ${text}`);
    return { ms, r: JSON.parse(text) };
  };
  try {
    await room.seat();
    const fill = await crowd({ fill: users, state: true });
    log(
      `  ${users} users: ${fill.r.added} added in ${(fill.ms / 1000).toFixed(1)} s; full state ${(fill.r.fullStateBytes / 1e6).toFixed(2)} MB`,
    );
    const k = Math.min(votes, users);
    let round = 0;
    // Untimed: the voters' first votes, and one call of each kind.
    await crowd({ votes: { from: 0, count: k, round: round++ } });
    await crowd({ votes: { from: 0, count: 0 } });
    const samples = [];
    let refused = 0;
    for (let i = 0; i < reps; i++) {
      const zero = { votes: { from: 0, count: 0 } };
      const some = { votes: { from: 0, count: k, round: round++ } };
      const [a, b] = i % 2 ? [some, zero] : [zero, some];
      await crowd({ settle: true });
      const first = await crowd(a);
      await crowd({ settle: true });
      const second = await crowd(b);
      const [t0, tk] = i % 2 ? [second, first] : [first, second];
      // A vote refused (between two songs: nothing playing) makes the sample worthless.
      if (tk.r.refused) refused++;
      else samples.push({ t0: t0.ms, tk: tk.ms, perVote: (tk.ms - t0.ms) / k });
    }
    const row = {
      users,
      present: fill.r.present,
      fullStateBytes: fill.r.fullStateBytes,
      fillSeconds: r1(fill.ms / 1000),
      votesPerCall: k,
      repetitions: samples.length,
      repetitionsRefused: refused,
      callZeroVotesMsMedian: r1(median(samples.map((s) => s.t0))),
      callKVotesMsMedian: r1(median(samples.map((s) => s.tk))),
      msPerVote: ms3(median(samples.map((s) => s.perVote))),
      msPerVoteSamples: samples.map((s) => ms3(s.perVote)),
    };
    log(
      `  ${users} users: ${k} votes a call, ${row.repetitions} repetitions: ${row.msPerVote ?? "-"} ms a vote (median of ${row.msPerVoteSamples.join(", ")}; calls ${row.callZeroVotesMsMedian} ms with 0 votes, ${row.callKVotesMsMedian} ms with ${k})`,
    );
    return row;
  } finally {
    await room.close();
  }
}

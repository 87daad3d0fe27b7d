import { abortAllDurableObjects, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";

vi.setConfig({ testTimeout: 20_000 });
import type { StatefulMessage } from "../shared/protocol";
import { db } from "../workers/db/client";
import { recentSongPlays } from "../workers/db/schema";
import { clearSongs, specialCrate } from "../workers/crates/crate-repo";
import { crateRows } from "./crate-helpers";
import {
  applySettings,
  connect,
  expectInSync,
  newRoom,
  person,
  runAlarm,
  seedQueue,
  stub,
  takeSeat,
  uuids,
  type RoomClient,
} from "./room-helpers";

/** Playback (seed 001 Playback; issue 4): rotation, alarm-driven advance, skip, leaving, eviction. */

const playing = (c: RoomClient) => c.state!.nowPlaying;
const songOf = (c: RoomClient) => playing(c)?.song.songId;

describe("Room playback: rotation", () => {
  it("three DJs take turns through the alarm; each play is recorded once and the song rotates to the end of its queue", async () => {
    const room = newRoom();
    const djs = [await person(), await person(), await person()];
    const queues: Awaited<ReturnType<typeof seedQueue>>[] = [];
    const clients: RoomClient[] = [];
    for (const p of djs) {
      queues.push(await seedQueue(p.uuid, 2));
      clients.push(await connect(room, p));
    }
    for (let i = 0; i < 3; i++) await takeSeat(clients[i], djs[i].uuid);
    const a = clients[0];
    await a.until(() => songOf(a) === queues[0][0].songId, "A's first song");
    const np = playing(a)!;
    expect(np.djUuid).toBe(djs[0].uuid);
    expect(np.endTime - np.startTime).toBe(200_000);
    expect(np.song).toMatchObject({
      trackName: queues[0][0].trackName,
      crateSongUuid: expect.any(String),
      duration: 200,
    });

    const expected = [queues[1][0], queues[2][0], queues[0][1], queues[1][1]];
    const playIds = [np.playId];
    for (const song of expected) {
      await runAlarm(room);
      await a.until((s) => s.nowPlaying?.song.songId === song.songId, `song ${song.trackName}`);
      playIds.push(playing(a)!.playId);
      // The DJ after this one hears it as this song starts (B's start: C is next).
      if (song === queues[1][0]) await clients[2].waitFor((m) => m.name === "youAreNext");
    }
    expect(new Set(playIds).size).toBe(playIds.length);
    // After A's second turn the stage order is B, C, A again with B playing.
    expect(uuids(a.state!.djs)).toEqual([djs[1].uuid, djs[2].uuid, djs[0].uuid]);

    const rows = await db(env)
      .select()
      .from(recentSongPlays)
      .where(eq(recentSongPlays.roomSlug, room))
      .all();
    expect(rows.map((r) => r.playId).sort()).toEqual(playIds.slice(0, 4).sort());
    // A played both songs: each went to the end in turn, so the queue is back in its order.
    const queueA = await specialCrate(env, djs[0].uuid, "queue");
    const { rows: order } = await crateRows(queueA.crateUuid);
    expect(order.map((r) => r.songId)).toEqual([queues[0][0].id, queues[0][1].id]);
    for (const c of clients) await expectInSync(room, c);
    for (const c of clients) c.close();
  });

  it("a DJ who leaves mid-song does not cause the next DJ to be skipped", async () => {
    const room = newRoom();
    const djs = [await person(), await person(), await person()];
    const clients: RoomClient[] = [];
    const queues: Awaited<ReturnType<typeof seedQueue>>[] = [];
    for (const p of djs) {
      queues.push(await seedQueue(p.uuid, 1));
      clients.push(await connect(room, p));
    }
    for (let i = 0; i < 3; i++) await takeSeat(clients[i], djs[i].uuid);
    await clients[2].until((s) => s.nowPlaying?.djUuid === djs[0].uuid);
    clients[0].send({ action: "removeDj" });
    const s = await clients[2].until(
      (st) => st.nowPlaying?.djUuid === djs[1].uuid,
      "B plays after A leaves",
    );
    expect(s.nowPlaying!.song.songId).toBe(queues[1][0].songId);
    expect(uuids(s.djs)).toEqual([djs[1].uuid, djs[2].uuid]);
    for (const c of clients) c.close();
  });

  it("skips a song longer than maxSongSeconds and one played in the window; a DJ with nothing playable steps down", async () => {
    const room = newRoom();
    await applySettings(room, { maxSongSeconds: 300, repeatWindowMinutes: 60 });
    const dj = await person();
    const [long] = await seedQueue(dj.uuid, 1, { duration: 600 });
    const [ok] = await seedQueue(dj.uuid, 1);
    const c = await connect(room, dj);
    await takeSeat(c, dj.uuid);
    await c.until((s) => s.nowPlaying?.song.songId === ok.songId, "the short song");
    expect(long.duration).toBe(600);
    // After it ends, the long one is too long and the short one was just played: nothing to play.
    await runAlarm(room);
    const s = await c.until(
      (st) => st.djs.length === 0 && st.nowPlaying === null,
      "the DJ steps down",
    );
    expect(s.nowPlaying).toBeNull();
    c.close();
  });

  it("a DJ whose queue emptied steps down when their turn comes", async () => {
    const room = newRoom();
    const [a, b] = [await person(), await person()];
    await seedQueue(a.uuid, 1);
    const [bSong] = await seedQueue(b.uuid, 1);
    const ca = await connect(room, a);
    const cb = await connect(room, b);
    await takeSeat(ca, a.uuid);
    await takeSeat(cb, b.uuid);
    await clearSongs(env, (await specialCrate(env, a.uuid, "queue")).id);
    await runAlarm(room); // A's song ends: B plays, A to the back
    await ca.until((s) => s.nowPlaying?.song.songId === bSong.songId);
    await runAlarm(room); // B's ends: A's turn, A has nothing: steps down; B plays again? (repeat window) -> none
    const s = await ca.until((st) => !uuids(st.djs).includes(a.uuid), "A steps down");
    expect(s.nowPlaying?.djUuid ?? null).not.toBe(a.uuid);
    ca.close();
    cb.close();
  });
});

describe("Room playback: skip", () => {
  it("the current DJ or a moderator may skip; a listener may not", async () => {
    const room = newRoom();
    const [dj, listener] = [await person(), await person()];
    await seedQueue(dj.uuid, 3);
    const d = await connect(room, dj);
    const l = await connect(room, listener);
    await takeSeat(d, dj.uuid);
    const first = (await l.until((s) => s.nowPlaying !== null)).nowPlaying!.playId;
    expect(await l.refused({ action: "skipSong" })).toMatch(/Only the current DJ/);
    d.send({ action: "skipSong" });
    const second = (await l.until((s) => !!s.nowPlaying && s.nowPlaying.playId !== first))
      .nowPlaying!.playId;
    await stub(room).setRole(listener.uuid, "moderator", null);
    l.send({ action: "skipSong" });
    await l.until((s) => !!s.nowPlaying && s.nowPlaying.playId !== second, "a moderator's skip");
    d.close();
    l.close();
  });
});

describe("Room playback: eviction, protocol, reset", () => {
  it("seats, now playing and votes survive abortAllDurableObjects; every frame's seq is previous + 1", async () => {
    const room = newRoom();
    const [dj, fan] = [await person(), await person()];
    await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    const f = await connect(room, fan);
    await takeSeat(d, dj.uuid);
    await f.until((s) => s.nowPlaying !== null);
    f.send({ action: "voteOnSong", songVotes: { like: true } });
    const before = await f.until((s) => s.voteCounts.likes === 1);
    await abortAllDurableObjects();
    await d.closed;

    const back = await connect(room, fan);
    const djBack = await connect(room, dj); // inside the grace: the seat is kept
    expect(back.state!.djs.map((x) => x.uuid)).toEqual([dj.uuid]);
    expect(back.state!.nowPlaying).toEqual(before.nowPlaying);
    expect(back.state!.voteCounts).toEqual({ likes: 1, dislikes: 0, stars: 0 });
    expect(back.seq).toBeGreaterThanOrEqual(f.seq);
    // The alarm survived too: the song still ends and the DJ's next one plays.
    await runAlarm(room);
    await back.until(
      (s) => !!s.nowPlaying && s.nowPlaying.playId !== before.nowPlaying!.playId,
      "next song after eviction",
    );
    const seqs = [
      back.seq - back.frames().length,
      ...back.frames().map((m: StatefulMessage) => m.seq),
    ];
    seqs.slice(1).forEach((s, i) => expect(s).toBe(seqs[i] + 1));
    await expectInSync(room, back);
    back.close();
    djBack.close();
  });

  it("resetRoom tells everyone to rejoin within 2 s and clears the stage, keeping settings and roles", async () => {
    const room = newRoom();
    await applySettings(room, { numberOfDjs: 3 });
    const dj = await person();
    await stub(room).setRole(dj.uuid, "moderator", null);
    await seedQueue(dj.uuid, 1);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await d.until((s) => s.nowPlaying !== null);
    await stub(room).resetRoom();
    const reset = await d.waitFor((m) => m.name === "roomReset");
    expect(reset).toEqual({ name: "roomReset", params: { rejoinWithinMs: 2000 } });
    const state = await stub(room).getState();
    expect(state.djs).toEqual([]);
    expect(state.nowPlaying).toBeNull();
    expect(state.settings.numberOfDjs).toBe(3);
    expect(state.settings.roomRoles).toEqual([
      { userUuid: dj.uuid, role: "moderator", expirationTime: null },
    ]);
    await expectInSync(room, d);
    d.close();
  });
});

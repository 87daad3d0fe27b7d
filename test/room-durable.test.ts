import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { specialCrate } from "../workers/crates/crate-repo";
import { LIFETIME_BOARD } from "../workers/queues/points";
import {
  applySettings,
  connect,
  newRoom,
  person,
  runAlarm,
  seedQueue,
  stub,
  takeSeat,
  uuids,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** Issue 11 "Correct and durable": visibleDjs, due alarms, isLive and liveAudio, the effect outbox. */

describe("Room: visibleDjs follows djs", () => {
  it("after a rotation and after updateNextSong, a client's visibleDjs equals its djs", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const [a, b] = [await person(), await person()];
    await seedQueue(a.uuid, 2);
    await seedQueue(b.uuid, 2);
    const ca = await connect(room, a);
    const cb = await connect(room, b);
    await takeSeat(ca, a.uuid);
    await takeSeat(cb, b.uuid);
    await cb.until((s) => s.nowPlaying?.djUuid === a.uuid, "A playing");

    await runAlarm(room); // A's song ends: B plays, A goes to the back
    const rotated = await cb.until((s) => s.nowPlaying?.djUuid === b.uuid, "B playing");
    expect(uuids(rotated.djs)).toEqual([b.uuid, a.uuid]);
    expect(rotated.visibleDjs).toEqual(rotated.djs);

    ca.send({
      action: "updateNextSong",
      song: { songId: "n1", trackName: "Next", artistName: "Up", duration: 100 },
    });
    const next = await cb.until(
      (s) => s.djs.find((d) => d.uuid === a.uuid)?.nextSong?.songId === "n1",
      "A's next song",
    );
    expect(next.visibleDjs).toEqual(next.djs);
    expect((await stub(room).getState()).visibleDjs).toEqual(next.djs);
    ca.close();
    cb.close();
  });
});

describe("Room: alarms run only what is due", () => {
  it("a spurious alarm (nothing due) neither ends the song nor a user's grace", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const [dj, fan] = [await person(), await person()];
    await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    const f = await connect(room, fan);
    await takeSeat(d, dj.uuid);
    const playing = await d.until((s) => s.nowPlaying !== null, "a song playing");
    const playId = playing.nowPlaying!.playId;
    f.close(); // the fan's 30 s grace starts: they stay listed until it ends
    await vi.waitFor(
      async () =>
        expect(
          await runInDurableObject(stub(room), (_o, state) =>
            state.storage.sql
              .exec(`SELECT key FROM room_schedule WHERE key LIKE 'grace:%'`)
              .toArray(),
          ),
        ).toHaveLength(1),
      { timeout: 5000, interval: 20 },
    );

    // A duplicated or early alarm delivery: the platform's alarm fires with nothing due.
    expect(await runDurableObjectAlarm(stub(room))).toBe(true);
    expect(await runDurableObjectAlarm(stub(room))).toBe(true);
    await new Promise((r) => setTimeout(r, 200)); // a frame would be out by now (50 ms tick)
    const s = await stub(room).getState();
    expect(s.nowPlaying?.playId).toBe(playId);
    expect(uuids(s.allUsers)).toContain(fan.uuid);
    expect(d.state!.nowPlaying?.playId).toBe(playId);
    // The alarm is still set for what is next, so the song does end on time.
    expect(
      await runInDurableObject(stub(room), async (_o, state) => state.storage.getAlarm()),
    ).not.toBeNull();
    d.close();
  });
});

describe("Room: isLive and liveAudio", () => {
  it("a room that is not live starts no song; going live starts the first DJ's; going off air stops it, the DJ keeps the seat", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0, isLive: false });
    const dj = await person();
    const [first] = await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid); // seats may fill before the room goes live
    await new Promise((r) => setTimeout(r, 300)); // a start would be out by now
    expect((await stub(room).getState()).nowPlaying).toBeNull();
    expect(d.state!.nowPlaying).toBeNull();

    await applySettings(room, { autoSkipRatio: 0, isLive: true });
    await d.until((s) => s.nowPlaying?.song.songId === first.songId, "the song starts on air");

    await applySettings(room, { autoSkipRatio: 0, isLive: false });
    const off = await d.until((s) => s.nowPlaying === null, "the song stops off air");
    expect(uuids(off.djs)).toEqual([dj.uuid]);
    expect(
      await runInDurableObject(stub(room), (_o, state) =>
        state.storage.sql.exec(`SELECT key FROM room_schedule WHERE key = 'song-end'`).toArray(),
      ),
    ).toEqual([]);
    d.close();
  });

  it("liveAudio stands in for the rotation: the song stops, nobody new may sit, and the rotation resumes when it ends", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const [dj, other] = [await person(), await person()];
    await seedQueue(dj.uuid, 2);
    await seedQueue(other.uuid, 2);
    const d = await connect(room, dj);
    const o = await connect(room, other);
    await takeSeat(d, dj.uuid);
    await o.until((s) => s.nowPlaying?.djUuid === dj.uuid, "the DJ playing");

    await applySettings(room, { autoSkipRatio: 0, liveAudio: true });
    await o.until((s) => s.nowPlaying === null, "the song stops for the live audio");
    expect(await o.refused({ action: "addDj" })).toBe(
      "This room is playing live audio: the DJ booth is closed.",
    );
    expect(uuids(o.state!.djs)).toEqual([dj.uuid]);

    await applySettings(room, { autoSkipRatio: 0, liveAudio: false });
    await o.until((s) => s.nowPlaying?.djUuid === dj.uuid, "the rotation resumes");
    d.close();
    o.close();
  });
});

describe("Room: side effects go through the outbox", () => {
  it("a star whose first attempt fails lands in the likes crate after eviction; the DJ's points arrive once", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const [dj, fan] = [await person(), await person()];
    const [song] = await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    const f = await connect(room, fan);
    await takeSeat(d, dj.uuid);
    await f.until((s) => s.nowPlaying?.song.songId === song.songId, "the DJ's song");

    // D1 refuses the fan's likes-crate insert: the first attempt of the star fails.
    const likes = await specialCrate(env, fan.uuid, "likes");
    const trigger = `fail_star_${crypto.randomUUID().replace(/-/g, "")}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON crate_songs WHEN NEW.crate_id = ${likes.id}
       BEGIN SELECT RAISE(ABORT, 'likes crate unavailable'); END`,
    ).run();
    const crateRows = () =>
      env.DB.prepare(`SELECT song_id FROM crate_songs WHERE crate_id = ?`)
        .bind(likes.id)
        .all<{ song_id: string }>()
        .then((r) => r.results.map((x) => x.song_id));

    f.send({ action: "voteOnSong", songVotes: { like: true, star: true } });
    await f.until((s) => s.voteCounts.stars === 1, "the star counted");
    const lifetime = env.Leaderboard.getByName(LIFETIME_BOARD);
    // The star's attempt is made first, so once the points are in it has failed.
    await vi.waitFor(async () => expect((await lifetime.rankOf(dj.uuid))?.balance).toBe(3), {
      timeout: 10_000,
      interval: 50,
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(await crateRows()).toEqual([]);

    // The object is evicted with the star still owed; D1 recovers meanwhile.
    await abortAllDurableObjects();
    await d.closed;
    await env.DB.prepare(`DROP TRIGGER ${trigger}`).run();
    await stub(room).getSummary(); // any call boots the object, which drains its outbox
    await vi.waitFor(async () => expect(await crateRows()).toEqual([song.id]), {
      timeout: 10_000,
      interval: 50,
    });
    // Nothing is owed any more, and the points were not sent again.
    expect(
      await runInDurableObject(stub(room), (_o, state) =>
        state.storage.sql.exec(`SELECT key FROM room_effects`).toArray(),
      ),
    ).toEqual([]);
    // (a fresh stub: the abort broke the old one)
    const board = env.Leaderboard.getByName(LIFETIME_BOARD);
    expect((await board.rankOf(dj.uuid))?.balance).toBe(3);
  });
});

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  account,
  applySettings,
  connect,
  expectInSync,
  newRoom,
  runAlarm,
  seedQueue,
  stub,
  takeSeat,
  uuids,
  type RoomClient,
  type RoomPerson,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** AFK DJ removal and songsPerDj (issue 4 "Beyond every peer"). */

/** Moves a DJ's last action (and their AFK check) `ms` into the past, in the object's SQLite. */
async function idleFor(room: string, uuid: string, ms: number) {
  await runInDurableObject(stub(room), (_o, state) => {
    state.storage.sql.exec(
      `UPDATE room_dj_stats SET last_action = last_action - ? WHERE uuid = ?`,
      ms,
      uuid,
    );
    state.storage.sql.exec(
      `UPDATE room_schedule SET due = due - ? WHERE key = ?`,
      ms,
      `afk:${uuid}`,
    );
  });
}

const lastAction = (room: string, uuid: string) =>
  runInDurableObject(
    stub(room),
    (_o, state) =>
      state.storage.sql
        .exec<{ last_action: number }>(`SELECT last_action FROM room_dj_stats WHERE uuid = ?`, uuid)
        .toArray()[0]?.last_action,
  );

const nameOf = (c: RoomClient, uuid: string) => c.state!.allUserData[uuid].userProfile.nickname;
const roomLines = (c: RoomClient) =>
  c.state!.chat.filter((m) => m.type === "room").map((m) => m.message);

async function stage(room: string, n: number, songs = 2) {
  const people: RoomPerson[] = [];
  const clients: RoomClient[] = [];
  for (let i = 0; i < n; i++) {
    const p = await account();
    await seedQueue(p.uuid, songs);
    people.push(p);
    clients.push(await connect(room, p));
  }
  for (let i = 0; i < n; i++) await takeSeat(clients[i], people[i].uuid);
  await clients[0].until((s) => s.nowPlaying?.djUuid === people[0].uuid, "the first DJ playing");
  return { people, clients };
}

describe("Room AFK removal", () => {
  it("an idle DJ leaves the stage at their AFK check; the current DJ only at the end of their song; ping does not count", async () => {
    const room = newRoom();
    await applySettings(room, { afkMinutes: 1, autoSkipRatio: 0 });
    const { people, clients } = await stage(room, 3);
    const [a, b, c] = people;
    const watcher = clients[2];

    // A ping is not an action; updateNextSong is.
    const before = await lastAction(room, c.uuid);
    await idleFor(room, c.uuid, 5 * 60_000);
    clients[2].send({ action: "ping", clientTime: Date.now() });
    await clients[2].waitFor((m) => m.name === "pong");
    expect(await lastAction(room, c.uuid)).toBe(before - 5 * 60_000);
    clients[2].send({
      action: "updateNextSong",
      song: { songId: "n1", trackName: "Next", artistName: "Up", duration: 100 },
    });
    // Its frame is out before the alarm below, so the removal gets a frame of its own.
    await watcher.until(
      (st) => st.djs.find((d) => d.uuid === c.uuid)?.nextSong?.songId === "n1",
      "C's next song",
    );
    await vi.waitFor(
      async () => expect(await lastAction(room, c.uuid)).toBeGreaterThanOrEqual(before),
      { timeout: 5000 },
    );

    // A (playing) and B (waiting) have been idle for two minutes.
    await idleFor(room, a.uuid, 2 * 60_000);
    await idleFor(room, b.uuid, 2 * 60_000);
    const seqBefore = watcher.seq;
    expect(await runDurableObjectAlarm(stub(room))).toBe(true);
    const s = await watcher.until((st) => !uuids(st.djs).includes(b.uuid), "B removed");
    expect(uuids(s.djs)).toEqual([a.uuid, c.uuid]); // A is mid-song: they stay until it ends
    expect(s.nowPlaying?.djUuid).toBe(a.uuid);
    await watcher.until(
      () => roomLines(watcher).includes(`${nameOf(watcher, b.uuid)} left the stage (away)`),
      "the away message",
    );
    expect(
      watcher
        .frames()
        .filter((f) => f.seq > seqBefore)
        .map((f) => f.name),
    ).toContain("removedDj");

    // A's song ends (its schedule entry made due; C's AFK check is still ahead): A steps down (away), C plays.
    await runInDurableObject(
      stub(room),
      (_o, state) =>
        void state.storage.sql.exec(`UPDATE room_schedule SET due = 0 WHERE key = 'song-end'`),
    );
    expect(await runDurableObjectAlarm(stub(room))).toBe(true);
    const after = await watcher.until((st) => st.nowPlaying?.djUuid === c.uuid, "C playing");
    expect(uuids(after.djs)).toEqual([c.uuid]);
    await watcher.until(
      () => roomLines(watcher).includes(`${nameOf(watcher, a.uuid)} left the stage (away)`),
      "A's away message",
    );
    // C acted recently: still on stage, their AFK check is in the future.
    for (const cl of clients) await expectInSync(room, cl);
    for (const cl of clients) cl.close();
  });

  it("afkMinutes 0 never removes anyone", async () => {
    const room = newRoom();
    await applySettings(room, { afkMinutes: 0, autoSkipRatio: 0 });
    const { people, clients } = await stage(room, 2);
    await idleFor(room, people[1].uuid, 600 * 60_000);
    const scheduled = await runInDurableObject(stub(room), (_o, state) =>
      state.storage.sql
        .exec<{ key: string }>(`SELECT key FROM room_schedule`)
        .toArray()
        .map((r) => r.key),
    );
    expect(scheduled.filter((k) => k.startsWith("afk:"))).toEqual([]);
    await runAlarm(room); // the song end
    const s = await clients[0].until((st) => st.nowPlaying?.djUuid === people[1].uuid, "B playing");
    expect(uuids(s.djs)).toEqual([people[1].uuid, people[0].uuid]);
    for (const cl of clients) cl.close();
  });
});

describe("Room songsPerDj", () => {
  it("a DJ who has played songsPerDj songs in one stay steps down after their song, with a room message", async () => {
    const room = newRoom();
    await applySettings(room, { songsPerDj: 2, autoSkipRatio: 0 });
    const { people, clients } = await stage(room, 2, 3);
    const [a, b] = people;
    const w = clients[1];
    // A1, B1, A2 (A's second: A steps down after it), B2 (B steps down), then nobody.
    await runAlarm(room);
    await w.until((s) => s.nowPlaying?.djUuid === b.uuid, "B1");
    await runAlarm(room);
    await w.until((s) => s.nowPlaying?.djUuid === a.uuid, "A2");
    expect(uuids(w.state!.djs)).toEqual([a.uuid, b.uuid]);
    await runAlarm(room);
    const s = await w.until(
      (st) => st.nowPlaying?.djUuid === b.uuid && !uuids(st.djs).includes(a.uuid),
      "A stepped down, B2",
    );
    expect(uuids(s.djs)).toEqual([b.uuid]);
    await w.until(
      () =>
        roomLines(w).some((l) =>
          l?.startsWith(`${nameOf(w, a.uuid)} left the stage after 2 songs`),
        ),
      "A's message",
    );
    await runAlarm(room);
    await w.until((st) => st.djs.length === 0 && st.nowPlaying === null, "B stepped down");
    // A new stay starts a new count.
    await takeSeat(clients[0], a.uuid);
    await w.until((st) => st.nowPlaying?.djUuid === a.uuid, "A again");
    for (const cl of clients) await expectInSync(room, cl);
    for (const cl of clients) cl.close();
  });
});

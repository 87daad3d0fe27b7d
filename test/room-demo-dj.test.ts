import { env, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { crateSongs, users } from "../workers/db/schema";
import { specialCrate } from "../workers/crates/crate-repo";
import { demoDjOf } from "../durable/room/demo-dj";
import { seedSong } from "./crate-helpers";
import {
  accountRow,
  applySettings,
  connect,
  expectInSync,
  person,
  runAlarm,
  stub,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/**
 * The demo DJ (issue 20): rooms that DEMO_DJS names (vitest.config.ts: demo-room-a and
 * demo-room-b share DJ d0d1, demo-room-c has d0d2) keep a seeded bot on stage playing public
 * uploads, driven by the room's alarm. Storage is per file, so each test has its own room.
 */
const DJ = "00000000-0000-4000-8000-00000000d0d1";
const DJ_C = "00000000-0000-4000-8000-00000000d0d2";

async function demoDj(uuid: string, nickname: string) {
  await accountRow(uuid, ["user", "bot"]);
  await db(env).update(users).set({ nickname, avatarId: "vinyl-spin" }).where(eq(users.uuid, uuid));
}

/** Public verified uploads (the demo music): three 30-second songs. */
const demoSongs = async () => {
  const owner = crypto.randomUUID();
  return [
    await seedSong({ duration: 30, ownerUuid: owner }),
    await seedSong({ duration: 30, ownerUuid: owner }),
    await seedSong({ duration: 30, ownerUuid: owner }),
  ];
};

/** Makes the room's `demo-dj` check due and runs the alarm. */
async function runDemoCheck(room: string) {
  await runInDurableObject(stub(room), (_o, state) => {
    state.storage.sql.exec(`UPDATE room_schedule SET due = 0 WHERE key = 'demo-dj'`);
  });
  await runAlarm(room);
}

const songEnd = (room: string) =>
  runInDurableObject(stub(room), (_o, state) => {
    state.storage.sql.exec(`UPDATE room_schedule SET due = 0 WHERE key = 'song-end'`);
  }).then(() => runAlarm(room));

describe("demo DJ", () => {
  it("reads DEMO_DJS by slug or uuid and ignores junk", () => {
    const cfg = "sunset-deck:aaa, 00000000-0000-4000-8000-0000000000a2:bbb,junk,:x,y:";
    expect(demoDjOf(cfg, { slug: "sunset-deck", uuid: "u1" })).toBe("aaa");
    expect(demoDjOf(cfg, { slug: "other", uuid: "00000000-0000-4000-8000-0000000000a2" })).toBe(
      "bbb",
    );
    expect(demoDjOf(cfg, { slug: "junk", uuid: "u3" })).toBeNull();
    expect(demoDjOf(undefined, { slug: "sunset-deck", uuid: "u1" })).toBeNull();
    expect(demoDjOf("", { slug: "sunset-deck", uuid: "u1" })).toBeNull();
  });

  it("takes the stage once the room is set up, plays the demo music and keeps playing song after song (alarm-driven), past the repeat window", async () => {
    await demoDj(DJ, "DJ Demo");
    const songs = await demoSongs();
    const room = "demo-room-a";
    await applySettings(room, { repeatWindowMinutes: 60 });
    const listener = await person();
    const c = await connect(room, listener);
    await c.until((s) => s.nowPlaying?.djUuid === DJ, "the demo DJ playing");
    const st = c.state!;
    expect(st.djs.map((d) => d.uuid)).toEqual([DJ]);
    expect(st.allUserData[DJ].userProfile).toMatchObject({
      nickname: "DJ Demo",
      avatarId: "vinyl-spin",
    });
    // Its queue was filled from the public uploads.
    const played = [st.nowPlaying!.song.songId];
    // Five song ends in a row: three songs, then the first two again (the 60-minute repeat
    // window would stop anyone else; the demo loop is exempt). Each end is the alarm.
    for (let i = 0; i < 5; i++) {
      const before = c.state!.nowPlaying!.playId;
      await songEnd(room);
      await c.until((s) => !!s.nowPlaying && s.nowPlaying.playId !== before, "the next song");
      expect(c.state!.nowPlaying!.djUuid).toBe(DJ);
      played.push(c.state!.nowPlaying!.song.songId);
    }
    expect(new Set(played)).toEqual(new Set(songs.map((s) => s.songId)));
    expect(played.slice(3, 6)).toEqual(played.slice(0, 3));
    await expectInSync(room, c);
  });

  it("the demo-dj alarm puts it back on stage and refills its queue after it was taken off and its queue emptied; its grace never ends it; a deleted account leaves", async () => {
    await demoDj(DJ, "DJ Demo");
    await demoSongs();
    const room = "demo-room-b";
    await applySettings(room);
    const c = await connect(room, await person());
    await c.until((s) => s.nowPlaying?.djUuid === DJ, "the demo DJ playing");

    // Its socketless presence lapsed once (a grace ran out) and its queue emptied in D1.
    await runInDurableObject(stub(room), (_o, state) => {
      state.storage.sql.exec(`UPDATE room_users SET disconnected_at = 1 WHERE uuid = ?`, DJ);
      state.storage.sql.exec(`UPDATE room_schedule SET due = 0 WHERE key = 'song-end'`);
      state.storage.sql.exec(
        `INSERT OR REPLACE INTO room_schedule (key, due) VALUES (?, 0)`,
        `grace:${DJ}`,
      );
    });
    await runAlarm(room);
    await c.until((s) => s.djs.length === 0 && !s.allUsers.some((u) => u.uuid === DJ), "DJ gone");
    const queue = await specialCrate(env, DJ, "queue");
    await db(env).delete(crateSongs).where(eq(crateSongs.crateId, queue.id));
    await runDemoCheck(room);
    const state = await stub(room).getState();
    expect(state.djs.map((d) => d.uuid)).toEqual([DJ]);
    expect(state.nowPlaying?.djUuid).toBe(DJ);
    const rows = await db(env)
      .select()
      .from(crateSongs)
      .where(eq(crateSongs.crateId, queue.id))
      .all();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const schedule = await runInDurableObject(stub(room), (_o, s) =>
      s.storage.sql
        .exec<{ key: string }>(`SELECT key FROM room_schedule ORDER BY key`)
        .toArray()
        .map((r) => r.key),
    );
    expect(schedule).toContain("demo-dj"); // the next check

    // A grace started for it (the boot does that to users without a socket) is cleared by the
    // next check: it stays present.
    await runInDurableObject(stub(room), (_o, state) => {
      state.storage.sql.exec(`UPDATE room_users SET disconnected_at = 1 WHERE uuid = ?`, DJ);
      state.storage.sql.exec(
        `INSERT OR REPLACE INTO room_schedule (key, due) VALUES (?, ?)`,
        `grace:${DJ}`,
        Date.now() + 30_000,
      );
    });
    await runDemoCheck(room);
    const after = await runInDurableObject(stub(room), (_o, s) => ({
      grace: s.storage.sql
        .exec(`SELECT 1 FROM room_schedule WHERE key = ?`, `grace:${DJ}`)
        .toArray().length,
      gone: s.storage.sql
        .exec<{ d: number | null }>(
          `SELECT disconnected_at AS d FROM room_users WHERE uuid = ?`,
          DJ,
        )
        .toArray()[0]?.d,
    }));
    expect(after).toEqual({ grace: 0, gone: null });
    await expectInSync(room, c);

    // The account deleted in D1: the next check takes it off the stage and out of the room.
    await db(env).delete(users).where(eq(users.uuid, DJ));
    await runDemoCheck(room);
    await c.until(
      (s) => s.djs.length === 0 && !s.allUsers.some((u) => u.uuid === DJ) && !s.nowPlaying,
      "the deleted demo DJ gone",
    );
    await expectInSync(room, c);
  });

  it("a banned demo DJ stays off the stage; a room DEMO_DJS does not name has none", async () => {
    await demoDj(DJ_C, "DJ Other");
    await demoSongs();
    const room = "demo-room-c";
    await applySettings(room);
    await stub(room).setRole(DJ_C, "banned", null);
    await runDemoCheck(room);
    expect((await stub(room).getState()).djs).toEqual([]);
    expect((await stub(room).getUserUuids()).includes(DJ_C)).toBe(false);

    const plain = crypto.randomUUID();
    await applySettings(plain);
    const c = await connect(plain, await person());
    expect(c.state!.djs).toEqual([]);
    expect(c.state!.nowPlaying).toBeNull();
  });
});

import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { RoomStorage } from "../durable/room/storage";
import { ROOM_SHOWN_USERS, type RoomState, type RoomStateMessage } from "../shared/protocol";
import {
  connect,
  djPlaying,
  expectInSync,
  newRoom,
  open,
  person,
  seedQueue,
  stub,
  takeSeat,
} from "./room-helpers";

vi.setConfig({ testTimeout: 120_000 });

/** A room's cost does not grow with its crowd (issue 11): the crowd itself is the attack. */

const CROWD = 20_000;
/** Durable Object storage refuses a value over 2 MB; nothing here may get near it. */
const MAX_VALUE = 1_000_000;

/**
 * Fills the room with `n` present users through the same storage writes a join makes (a
 * user row and a profile row each), without n sockets: the point is the crowd's size, not
 * its sockets.
 */
async function fillRoom(room: string, n: number) {
  await runInDurableObject(stub(room), (_o, state) => {
    const storage = new RoomStorage(state.storage.sql, () => room);
    state.storage.transactionSync(() => {
      const now = Date.now();
      for (let i = 0; i < n; i++) {
        const uuid = `crowd-${String(i).padStart(6, "0")}-${crypto.randomUUID()}`;
        storage.upsertUser({ uuid, token_role: "user", guest: 0, email_verified: 1, pro: 0 }, now);
        storage.setProfile(uuid, {
          uuid,
          nickname: `Listener number ${i}`,
          avatarId: "default",
          color: null,
          badges: [],
        });
      }
    });
  });
}

/** The longest value any column of any of the object's tables holds. */
async function longestStoredValue(room: string): Promise<number> {
  return runInDurableObject(stub(room), (_o, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`,
      )
      .toArray();
    let longest = 0;
    for (const { name } of tables) {
      const cols = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, name);
      for (const c of cols.toArray()) {
        const r = sql
          .exec<{ n: number | null }>(`SELECT max(length("${c.name}")) AS n FROM "${name}"`)
          .one();
        longest = Math.max(longest, r.n ?? 0);
      }
    }
    return longest;
  });
}

describe("Room at scale", () => {
  it("a room of 20,000 listeners still publishes: a new socket gets the full state, then a vote's patch", async () => {
    const room = newRoom();
    const { d } = await djPlaying(room);

    await fillRoom(room, CROWD);
    const listener = await person();
    const l = await open(room, listener);
    const full = (await l.waitFor((m) => m.name === "roomState")) as RoomStateMessage;
    // The joiner hears how many are here, and the lists name the first arrivals (the DJ
    // among them) rather than all 20,002: its full state stays small.
    expect(full.state.userCount).toBe(CROWD + 2);
    expect(full.state.audienceCount).toBe(CROWD + 1);
    expect(full.state.allUsers.length).toBe(ROOM_SHOWN_USERS);
    expect(Object.keys(full.state.allUserData)).toHaveLength(ROOM_SHOWN_USERS);
    expect(full.state.djs.map((x) => x.uuid)).toEqual([full.state.allUsers[0].uuid]);
    // ~580 bytes a named person: 200 of them, not the 11 MB that naming 20,002 would take.
    expect(JSON.stringify(full).length).toBeLessThan(200_000);
    expect(full.state.nowPlaying).not.toBeNull();

    // One more arrival past the names: the others hear the counts move, nothing else.
    const from = d.frames().length;
    const late = await open(room, await person());
    await d.until((s) => s.userCount === CROWD + 3, "the count of the late arrival");
    const ops = d
      .frames()
      .slice(from)
      .flatMap((f) => f.statePatch.map((op) => op.path));
    expect(ops.length).toBeGreaterThan(0);
    expect(ops.every((path) => path === "/userCount" || path === "/audienceCount")).toBe(true);
    late.close();

    l.send({ action: "voteOnSong", songVotes: { like: true } });
    await l.until((s) => s.voteCounts.likes === 1, "the vote's patch");
    expect(l.breaches).toEqual([]);
    // The socket that was there before the crowd is still in step too.
    await d.until(
      (s) => s.voteCounts.likes === 1 && s.allUsers.length === ROOM_SHOWN_USERS,
      "dj sees",
    );
    expect(d.breaches).toEqual([]);

    expect(await longestStoredValue(room)).toBeLessThan(MAX_VALUE);
  });

  it("a (re)connect gets the full state once, even when the client asks for it as it opens", async () => {
    // What the browser did on every open: ask, while the room is already sending it. The
    // ask must land before the room's first tick (50 ms) to be the case under test; on a
    // loaded machine it may land after, when a second state is the right answer to a
    // resync, so the case is tried in a few fresh rooms and must hold in one where it landed
    // in time. Without the rule every try gets two states.
    let c: Awaited<ReturnType<typeof open>> | null = null;
    let other: Awaited<ReturnType<typeof connect>> | null = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      const room = newRoom();
      c = await open(room, await person());
      c.send({ action: "joinRoom" });
      await c.waitFor((m) => m.name === "roomState");
      await c.waitFor((m) => m.name === "yourVote");
      // A later frame proves the tick that carried the full state has passed.
      other = await connect(room, await person());
      await c.until((s) => s.allUsers.length === 2, "the next frame");
      expect(c.breaches).toEqual([]);
      if (c.messages.filter((m) => m.name === "roomState").length === 1) break;
      c.close();
      other.close();
    }
    const held = c!;
    expect(held.messages.filter((m) => m.name === "roomState")).toHaveLength(1);
    // Asked again later (a resync), it is answered again.
    held.send({ action: "joinRoom" });
    await vi.waitFor(() =>
      expect(held.messages.filter((m) => m.name === "roomState")).toHaveLength(2),
    );
    held.close();
    other!.close();
  });

  it("past the named cap a late arrival is counted, named once seated or given a role, and counted again after leaving the seat", async () => {
    const room = newRoom();
    const first = await person();
    const a = await connect(room, first);
    await fillRoom(room, ROOM_SHOWN_USERS + 50);
    const late = await person();
    await seedQueue(late.uuid, 1);
    const l = await connect(room, late);
    const named = (s: RoomState) => s.allUsers.some((u) => u.uuid === late.uuid);
    const counted = await a.until(
      (s) => s.userCount === ROOM_SHOWN_USERS + 52,
      "the late arrival counted",
    );
    expect(named(counted)).toBe(false);
    expect(counted.allUserData[late.uuid]).toBeUndefined();
    expect(counted.allUsers).toHaveLength(ROOM_SHOWN_USERS);

    // A seat names them (the stage needs their name and face), leaving it un-names them.
    await takeSeat(l, late.uuid);
    const seated = await a.until(
      (s) => named(s) && s.djs.some((d) => d.uuid === late.uuid),
      "the DJ named",
    );
    expect(seated.allUserData[late.uuid].userProfile.uuid).toBe(late.uuid);
    expect(seated.audienceCount).toBe(ROOM_SHOWN_USERS + 51);
    l.send({ action: "removeDj" });
    const back = await a.until((s) => !named(s) && s.djs.length === 0, "back in the crowd");
    expect(back.audienceCount).toBe(ROOM_SHOWN_USERS + 52);

    // A room moderator is always named: the crowd must see who may act on it.
    await stub(room).setRole(late.uuid, "moderator", null);
    await a.until(
      (s) => s.allUsers.some((u) => u.uuid === late.uuid && u.highestRole === "moderator"),
      "the moderator named",
    );
    await expectInSync(room, a);
    l.close();
    a.close();
  });
});

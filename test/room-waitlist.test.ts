import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { WAITLIST_MAX, WaitlistStorage } from "../durable/room/waitlist-storage";
import type { ServerMessage } from "../shared/protocol";
import {
  applySettings,
  connect,
  endGrace,
  expectInSync,
  newRoom,
  person,
  seedQueue,
  stub,
  takeSeat,
  uuids,
  type RoomClient,
} from "./room-helpers";

/**
 * The DJ waiting list (issue 20, as on plug.dj): with the seats full a listener joins the
 * list, sees their place, and the room seats the first in line as a seat frees, once.
 */

const seatedMsgs = (c: RoomClient) =>
  c.messages.filter((m: ServerMessage) => m.name === "seatedFromWaitlist").length;

/** A room with `seats` seats, all taken by DJs with songs, and `waiting` listeners with songs. */
async function fullBooth(seats: number, waiting: number) {
  const room = newRoom();
  await applySettings(room, { numberOfDjs: seats, autoSkipRatio: 0 });
  const djs = [];
  for (let i = 0; i < seats; i++) {
    const p = await person();
    await seedQueue(p.uuid, 2);
    const c = await connect(room, p);
    await takeSeat(c, p.uuid);
    djs.push({ p, c });
  }
  const fans = [];
  for (let i = 0; i < waiting; i++) {
    const p = await person();
    await seedQueue(p.uuid, 2);
    fans.push({ p, c: await connect(room, p) });
  }
  return { room, djs, fans };
}

async function joinList(c: RoomClient, uuid: string) {
  c.send({ action: "joinWaitlist" });
  return c.until((s) => s.waitlist.includes(uuid), `${uuid} waiting`);
}

describe("Room waiting list: join, place, leave", () => {
  it("lists people in the order they joined, once each; leaving moves the others up", async () => {
    const { room, djs, fans } = await fullBooth(1, 3);
    const [a, b, c] = fans;
    await joinList(a.c, a.p.uuid);
    await joinList(b.c, b.p.uuid);
    await joinList(c.c, c.p.uuid);
    // Joining twice keeps the first place (one entry per user).
    a.c.send({ action: "joinWaitlist" });
    await expectInSync(room, a.c);
    expect(a.c.state!.waitlist).toEqual([a.p.uuid, b.p.uuid, c.p.uuid]);
    // Every listener sees the same list (their place is their index).
    expect(djs[0].c.state!.waitlist).toEqual([a.p.uuid, b.p.uuid, c.p.uuid]);

    a.c.send({ action: "leaveWaitlist" });
    const s = await c.c.until((st) => st.waitlist.length === 2, "a left");
    expect(s.waitlist).toEqual([b.p.uuid, c.p.uuid]);
    expect(await a.c.refused({ action: "leaveWaitlist" })).toBe("You are not on the waiting list.");
    // Back in line means the back of the line.
    await joinList(a.c, a.p.uuid);
    expect(a.c.state!.waitlist).toEqual([b.p.uuid, c.p.uuid, a.p.uuid]);
    await expectInSync(room, b.c);
    for (const x of [...djs, ...fans]) x.c.close();
  });

  it("refuses a guest, a DJ, an empty queue, a DJ-disabled user; changes nothing", async () => {
    const { room, djs } = await fullBooth(1, 0);
    const guest = await person("guest");
    const g = await connect(room, guest);
    expect(await g.refused({ action: "joinWaitlist" })).toBe("Guests cannot DJ.");
    expect(await djs[0].c.refused({ action: "joinWaitlist" })).toBe(
      "You are already on the stage.",
    );
    const empty = await person();
    const e = await connect(room, empty);
    expect(await e.refused({ action: "joinWaitlist" })).toMatch(/queue is empty/);
    const barred = await person();
    await seedQueue(barred.uuid, 1);
    await stub(room).setRole(barred.uuid, "djDisabled", null);
    const b = await connect(room, barred);
    expect(await b.refused({ action: "joinWaitlist" })).toBe("You may not DJ in this room.");
    expect((await stub(room).getState()).waitlist).toEqual([]);
    for (const c of [g, e, b, djs[0].c]) c.close();
  });

  it("is bounded: past WAITLIST_MAX a join is refused", async () => {
    const { room, djs, fans } = await fullBooth(1, 1);
    // Fill the list in the object's own table (50 sockets would only test the sockets).
    await runInDurableObject(stub(room), (_o, state) => {
      const list = new WaitlistStorage(state.storage.sql);
      for (let i = 0; i < WAITLIST_MAX; i++) expect(list.push(crypto.randomUUID())).toBe(true);
      expect(list.push(crypto.randomUUID())).toBe(false);
      expect(list.size()).toBe(WAITLIST_MAX);
    });
    expect(await fans[0].c.refused({ action: "joinWaitlist" })).toBe(
      "The waiting list is full; try again when someone gets a seat.",
    );
    for (const x of [...djs, ...fans]) x.c.close();
  });
});

describe("Room waiting list: seats free up", () => {
  it("a DJ who leaves is replaced by the first in line, who is told; the next moves up", async () => {
    const { room, djs, fans } = await fullBooth(2, 2);
    const [a, b] = fans;
    await joinList(a.c, a.p.uuid);
    await joinList(b.c, b.p.uuid);
    djs[1].c.send({ action: "removeDj" });
    const s = await b.c.until((st) => st.djs.some((d) => d.uuid === a.p.uuid), "a seated");
    expect(uuids(s.djs)).toEqual([djs[0].p.uuid, a.p.uuid]);
    expect(s.waitlist).toEqual([b.p.uuid]);
    await a.c.waitFor((m) => m.name === "seatedFromWaitlist");
    expect(seatedMsgs(b.c)).toBe(0);
    await expectInSync(room, a.c);
    for (const x of [...djs, ...fans]) x.c.close();
  });

  it("joining with a seat free (nobody waiting) seats you at once, and the song starts", async () => {
    const room = newRoom();
    await applySettings(room, { numberOfDjs: 1, autoSkipRatio: 0 });
    const p = await person();
    await seedQueue(p.uuid, 1);
    const c = await connect(room, p);
    c.send({ action: "joinWaitlist" });
    const s = await c.until((st) => st.nowPlaying?.djUuid === p.uuid, "playing");
    expect(uuids(s.djs)).toEqual([p.uuid]);
    expect(s.waitlist).toEqual([]);
    c.close();
  });

  it("races: two seats free at once, the head leaves meanwhile; each seat is filled once, in order", async () => {
    const { room, djs, fans } = await fullBooth(2, 4);
    for (const f of fans) await joinList(f.c, f.p.uuid);
    // All in flight together: both DJs step down, the head of the line leaves it, and
    // the second joins again (already there: nothing).
    djs[0].c.send({ action: "removeDj" });
    djs[1].c.send({ action: "removeDj" });
    fans[0].c.send({ action: "leaveWaitlist" });
    fans[1].c.send({ action: "joinWaitlist" });
    const w = fans[3].c;
    const ids = fans.map((f) => f.p.uuid);
    const s = await w.until(
      (st) => st.djs.length === 2 && st.djs.every((d) => ids.includes(d.uuid)),
      "both seats refilled from the list",
    );
    const seated = uuids(s.djs);
    expect(new Set(seated).size).toBe(2);
    // Whoever was first in line when each seat freed got it, in line order: the head
    // (unless its leave came first), then the next; the rest wait in their order.
    const order = seated.includes(ids[0]) ? ids : ids.slice(1);
    expect(seated).toEqual(order.slice(0, 2));
    await w.until((st) => st.waitlist.join() === order.slice(2).join(), "the rest in order");
    await expectInSync(room, w);
    for (const f of fans)
      await f.c
        .until(() => true)
        .then(() => expect(seatedMsgs(f.c)).toBe(seated.includes(f.p.uuid) ? 1 : 0));
    for (const x of [...djs, ...fans]) x.c.close();
  });

  it("more seats (numberOfDjs raised) seat the waiting at once", async () => {
    const { room, djs, fans } = await fullBooth(1, 2);
    for (const f of fans) await joinList(f.c, f.p.uuid);
    await applySettings(room, { numberOfDjs: 3, autoSkipRatio: 0 });
    const s = await fans[1].c.until((st) => st.djs.length === 3, "three seated");
    expect(uuids(s.djs)).toEqual([djs[0].p.uuid, fans[0].p.uuid, fans[1].p.uuid]);
    expect(s.waitlist).toEqual([]);
    for (const x of [...djs, ...fans]) x.c.close();
  });
});

describe("Room waiting list: the seat rule at seating time", () => {
  it("someone barred from DJing while they waited is dropped, not seated; the next one sits", async () => {
    const { room, djs, fans } = await fullBooth(1, 2);
    for (const f of fans) await joinList(f.c, f.p.uuid);
    await stub(room).setRole(fans[0].p.uuid, "djDisabled", null);
    djs[0].c.send({ action: "removeDj" });
    const s = await fans[1].c.until((st) => st.djs[0]?.uuid === fans[1].p.uuid, "next seated");
    expect(uuids(s.djs)).toEqual([fans[1].p.uuid]);
    expect(s.waitlist).toEqual([]);
    expect(seatedMsgs(fans[0].c)).toBe(0);
    await expectInSync(room, fans[0].c);
    for (const x of [...djs, ...fans]) x.c.close();
  });
});

describe("Room waiting list: leaving the room", () => {
  it("a kicked user and one whose grace ended are off the list; a seat then goes to the next", async () => {
    const { room, djs, fans } = await fullBooth(1, 3);
    for (const f of fans) await joinList(f.c, f.p.uuid);
    expect(await stub(room).kickUser(fans[0].p.uuid, "spam", null)).toBe(true);
    await fans[2].c.until((st) => !st.waitlist.includes(fans[0].p.uuid), "kicked off the list");
    fans[1].c.close();
    await endGrace(room);
    const s = await fans[2].c.until((st) => st.waitlist.length === 1, "gone after grace");
    expect(s.waitlist).toEqual([fans[2].p.uuid]);
    // A ban takes the DJ out; the last one waiting takes the seat.
    await stub(room).setRole(djs[0].p.uuid, "banned", null);
    const after = await fans[2].c.until((st) => st.djs[0]?.uuid === fans[2].p.uuid, "seated");
    expect(after.waitlist).toEqual([]);
    fans[2].c.close();
  });
});

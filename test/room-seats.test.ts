import { describe, expect, it } from "vitest";
import {
  account,
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
} from "./room-helpers";

/** Seats (seed 001 Validation rules; issue 4 "Seats"): who may sit, a full booth, leaving. */

describe("Room seats: who may DJ", () => {
  it("EVERYONE: a user with songs sits; a guest never; an empty queue is refused", async () => {
    const room = newRoom();
    const alice = await person();
    await seedQueue(alice.uuid, 1);
    const a = await connect(room, alice);
    await takeSeat(a, alice.uuid);
    expect(a.state!.audienceUsers.map((u) => u.uuid)).not.toContain(alice.uuid); // a DJ leaves the audience

    const guest = await person("guest");
    const g = await connect(room, guest);
    expect(g.state!.audienceUsers.find((u) => u.uuid === guest.uuid)?.canDj).toBe(false);
    expect(await g.refused({ action: "addDj" })).toBe("Guests cannot DJ.");

    const empty = await person();
    const e = await connect(room, empty);
    expect(await e.refused({ action: "addDj" })).toMatch(/queue is empty/);
    await expectInSync(room, e);
    expect(uuids(e.state!.djs)).toEqual([alice.uuid]);
    for (const c of [a, g, e]) c.close();
  });

  it("a full booth refuses with the spec's message", async () => {
    const room = newRoom();
    await applySettings(room, { numberOfDjs: 2 });
    const people = [await person(), await person(), await person()];
    const clients = [];
    for (const p of people) {
      await seedQueue(p.uuid, 1);
      clients.push(await connect(room, p));
    }
    await takeSeat(clients[0], people[0].uuid);
    await takeSeat(clients[1], people[1].uuid);
    expect(await clients[2].refused({ action: "addDj" })).toBe("The DJ booth is full.");
    expect(await clients[0].refused({ action: "addDj" })).toBe("You are already on the stage.");
    for (const c of clients) c.close();
  });

  it("VERIFIED_ONLY reads the verified flag from D1; canDj shows it", async () => {
    const room = newRoom();
    await applySettings(room, { djType: "VERIFIED_ONLY" });
    const verified = await account({ emailVerified: true });
    const unverified = await account();
    await seedQueue(verified.uuid, 1);
    await seedQueue(unverified.uuid, 1);
    const v = await connect(room, verified);
    const u = await connect(room, unverified);
    const s = await u.until((st) => st.allUsers.length === 2);
    expect(s.allUsers.find((x) => x.uuid === verified.uuid)?.canDj).toBe(true);
    expect(s.allUsers.find((x) => x.uuid === unverified.uuid)?.canDj).toBe(false);
    expect(await u.refused({ action: "addDj" })).toMatch(/verified/);
    await takeSeat(v, verified.uuid);
    v.close();
    u.close();
  });

  it("PRO_PLAN_OWNER lets subscribers only", async () => {
    const room = newRoom();
    await applySettings(room, { djType: "PRO_PLAN_OWNER" });
    const pro = await account({ subscriptionLevel: "gold" });
    const free = await account();
    await seedQueue(pro.uuid, 1);
    await seedQueue(free.uuid, 1);
    const p = await connect(room, pro);
    const f = await connect(room, free);
    expect(await f.refused({ action: "addDj" })).toMatch(/subscribers/);
    await takeSeat(p, pro.uuid);
    p.close();
    f.close();
  });

  it("INVITE_ONLY: the owner and holders of dj/moderator/coOwner; a granted role flips canDj at once", async () => {
    const room = newRoom();
    const owner = await person();
    const guestDj = await person();
    await applySettings(room, { djType: "INVITE_ONLY", ownerUuid: owner.uuid });
    await seedQueue(owner.uuid, 1);
    await seedQueue(guestDj.uuid, 1);
    const o = await connect(room, owner);
    const d = await connect(room, guestDj);
    expect(await d.refused({ action: "addDj" })).toMatch(/invite only/);
    await stub(room).setRole(guestDj.uuid, "dj", null);
    const s = await d.until(
      (st) => st.allUsers.find((u) => u.uuid === guestDj.uuid)?.canDj === true,
      "canDj after the role",
    );
    expect(s.settings.roomRoles).toEqual([
      { userUuid: guestDj.uuid, role: "dj", expirationTime: null },
    ]);
    expect(s.allUsers.find((u) => u.uuid === owner.uuid)?.highestRole).toBe("owner");
    await takeSeat(d, guestDj.uuid);
    await takeSeat(o, owner.uuid);
    await expectInSync(room, o);
    o.close();
    d.close();
  });
});

describe("Room seats: leaving and removal", () => {
  it("a lowered numberOfDjs removes the extra DJs from the back", async () => {
    const room = newRoom();
    const people = [await person(), await person(), await person()];
    const clients = [];
    for (const p of people) {
      await seedQueue(p.uuid, 1);
      const c = await connect(room, p);
      await takeSeat(c, p.uuid);
      clients.push(c);
    }
    await applySettings(room, { numberOfDjs: 1 });
    const s = await clients[0].until((st) => st.djs.length === 1 && st.settings.numberOfDjs === 1);
    expect(uuids(s.djs)).toEqual([people[0].uuid]);
    await expectInSync(room, clients[2]);
    for (const c of clients) c.close();
  });

  it("only a moderator or the owner removes another DJ; anyone leaves their own seat", async () => {
    const room = newRoom();
    const [dj, other, mod] = [await person(), await person(), await person()];
    await seedQueue(dj.uuid, 1);
    await seedQueue(other.uuid, 1);
    await stub(room).setRole(mod.uuid, "moderator", null);
    const d = await connect(room, dj);
    const o = await connect(room, other);
    const m = await connect(room, mod);
    await takeSeat(d, dj.uuid);
    await takeSeat(o, other.uuid);
    expect(await o.refused({ action: "removeDj", djUuid: dj.uuid })).toMatch(/moderator/);
    m.send({ action: "removeDj", djUuid: dj.uuid });
    await m.until((s) => !uuids(s.djs).includes(dj.uuid));
    o.send({ action: "removeDj" });
    const s = await o.until((st) => st.djs.length === 0);
    expect(s.nowPlaying).toBeNull();
    expect(await o.refused({ action: "removeDj" })).toBe("That user is not on the stage.");
    for (const c of [d, o, m]) c.close();
  });

  it("a dropped DJ keeps the seat through a reconnect inside 30 s; after the grace alarm they are gone", async () => {
    const room = newRoom();
    const [dj, watcher] = [await person(), await person()];
    await seedQueue(dj.uuid, 1);
    const w = await connect(room, watcher);
    let d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    d.close();
    await d.closed;
    d = await connect(room, dj); // back inside the grace
    expect(uuids(d.state!.djs)).toEqual([dj.uuid]);
    expect(await stub(room).getUserUuids()).toEqual(
      expect.arrayContaining([dj.uuid, watcher.uuid]),
    );

    d.close();
    await endGrace(room);
    const s = await w.until(
      (st) => !uuids(st.allUsers).includes(dj.uuid),
      "the DJ gone after the grace",
    );
    expect(s.djs).toEqual([]);
    expect(s.nowPlaying).toBeNull();
    expect(await stub(room).getUserUuids()).toEqual([watcher.uuid]);
    await expectInSync(room, w);
    w.close();
  });
});

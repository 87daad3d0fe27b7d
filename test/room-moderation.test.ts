import { describe, expect, it, vi } from "vitest";
import { CLOSE_KICKED } from "../shared/protocol";
import {
  applySettings,
  chatter,
  connect,
  expectInSync,
  newRoom,
  open,
  person,
  runAlarm,
  seedQueue,
  stub,
  takeSeat,
  uuids,
  type RoomClient,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** Roles that bite (seed 001 "Role in a room", "Chat disabled"; issue 4 "Roles and moderation"). */

const kickedMessage = (c: RoomClient) => c.waitFor((m) => m.name === "kickedFromRoom");

describe("Room moderation", () => {
  it("chatDisabled with an expiry stops chat until the alarm removes the role", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    await stub(room).setRole(alice.uuid, "chatDisabled", Date.now() + 60_000);
    await a.until((s) => s.settings.roomRoles.some((r) => r.role === "chatDisabled"));
    expect(await a.refused({ action: "sendChat", message: "hi", clientId: "c" })).toBe(
      "Chat is disabled for you in this room.",
    );
    await runAlarm(room);
    await a.until((s) => s.settings.roomRoles.length === 0, "role gone");
    expect(a.frames().at(-1)!.name).toBe("updatedRoomSettings");
    a.send({ action: "sendChat", message: "back", clientId: "c" });
    await a.until((s) => s.chat.some((m) => m.message === "back"));
    await expectInSync(room, a);
    a.close();
  });

  it("a moderator kicks: kickedFromRoom then close; others see userLeft and a room message; no rejoin until the alarm", async () => {
    const room = newRoom();
    const [owner, bob, carol] = [await chatter(), await person(), await person()];
    await applySettings(room, { ownerUuid: owner.uuid });
    const o = await connect(room, owner);
    await seedQueue(bob.uuid, 1);
    const b = await connect(room, bob);
    await takeSeat(b, bob.uuid);
    const c = await connect(room, carol);
    await o.until((s) => s.allUsers.length === 3);
    expect(await c.refused({ action: "kickUser", userUuid: bob.uuid })).toBe(
      "Only a moderator or the room's owner can kick a user.",
    );
    expect(await b.refused({ action: "kickUser", userUuid: owner.uuid })).toMatch(
      /Only a moderator/,
    );

    o.send({ action: "kickUser", userUuid: bob.uuid, reason: "spam" });
    expect(await kickedMessage(b)).toEqual({ name: "kickedFromRoom", params: { reason: "spam" } });
    expect((await b.closed).code).toBe(CLOSE_KICKED);
    const s = await c.until(
      (st) => !uuids(st.allUsers).includes(bob.uuid) && st.chat.some((m) => m.type === "room"),
    );
    expect(uuids(s.djs)).toEqual([]);
    expect(c.frames().some((f) => f.name === "userLeft")).toBe(true);
    expect(s.settings.roomRoles).toContainEqual({
      userUuid: bob.uuid,
      role: "kicked",
      expirationTime: expect.any(Number),
    });
    const exp = s.settings.roomRoles.find((r) => r.role === "kicked")!.expirationTime!;
    expect(exp - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(s.chat.find((m) => m.type === "room")!.message).toMatch(/kicked.*spam/);

    const again = await open(room, bob);
    expect(await kickedMessage(again)).toEqual({
      name: "kickedFromRoom",
      params: { reason: "kicked" },
    });
    expect((await again.closed).code).toBe(CLOSE_KICKED);
    expect(again.messages.some((m) => m.name === "roomState")).toBe(false);

    await runAlarm(room); // the 5 minutes are up
    await c.until((st) => st.settings.roomRoles.length === 0);
    const back = await connect(room, bob);
    await back.until((st) => uuids(st.allUsers).includes(bob.uuid));
    for (const x of [o, c, back]) await expectInSync(room, x);
    for (const x of [o, c, back]) x.close();
  });

  it("a banned user is refused at connect; a ban takes a present user out", async () => {
    const room = newRoom();
    const [eve, mallory, watcher] = [await person(), await person(), await person()];
    await stub(room).setRole(eve.uuid, "banned", null);
    const e = await open(room, eve);
    expect(await kickedMessage(e)).toEqual({
      name: "kickedFromRoom",
      params: { reason: "banned" },
    });
    expect((await e.closed).code).toBe(CLOSE_KICKED);
    const w = await connect(room, watcher);
    const m = await connect(room, mallory);
    await w.until((s) => s.allUsers.length === 2);
    await stub(room).setRole(mallory.uuid, "banned", null);
    expect(await kickedMessage(m)).toEqual({
      name: "kickedFromRoom",
      params: { reason: "banned" },
    });
    await w.until((s) => !uuids(s.allUsers).includes(mallory.uuid));
    expect(uuids(w.state!.allUsers)).not.toContain(eve.uuid);
    await expectInSync(room, w);
    w.close();
  });

  it("platform moderators and the kickUser RPC kick; the owner cannot be kicked; changeOwner moves ownership", async () => {
    const room = newRoom();
    const [owner, gm, bob, next] = [
      await person(),
      await person("user", ["user", "globalModerator"]),
      await person(),
      await person(),
    ];
    await applySettings(room, { ownerUuid: owner.uuid });
    const o = await connect(room, owner);
    const g = await connect(room, gm);
    const b = await connect(room, bob);
    expect(await g.refused({ action: "kickUser", userUuid: owner.uuid })).toBe(
      "The room's owner cannot be kicked.",
    );
    g.send({ action: "kickUser", userUuid: bob.uuid });
    expect((await b.closed).code).toBe(CLOSE_KICKED);
    const n = await connect(room, next);
    expect(await stub(room).kickUser(next.uuid, "by the service", null)).toBe(true);
    expect(await kickedMessage(n)).toEqual({
      name: "kickedFromRoom",
      params: { reason: "by the service" },
    });
    await o.until((s) => s.allUsers.length === 2);
    await stub(room).changeOwner(gm.uuid);
    const s = await o.until((st) => st.settings.ownerUuid === gm.uuid);
    expect(s.allUsers.find((u) => u.uuid === gm.uuid)!.highestRole).toBe("owner");
    expect(s.settings.roomRoles.filter((r) => r.role === "owner")).toEqual([
      { userUuid: gm.uuid, role: "owner", expirationTime: null },
    ]);
    await expectInSync(room, o);
    o.close();
    g.close();
  });

  it("a moderator's skip leaves a room message; the DJ's own skip does not", async () => {
    const room = newRoom();
    const [dj, mod] = [await person(), await person()];
    await seedQueue(dj.uuid, 3);
    await stub(room).setRole(mod.uuid, "moderator", null);
    const d = await connect(room, dj);
    const m = await connect(room, mod);
    await takeSeat(d, dj.uuid);
    const first = (await m.until((s) => s.nowPlaying !== null)).nowPlaying!.playId;
    d.send({ action: "skipSong" });
    const second = (await m.until((s) => s.nowPlaying !== null && s.nowPlaying.playId !== first))
      .nowPlaying!.playId;
    expect(m.state!.chat).toEqual([]);
    m.send({ action: "skipSong" });
    const s = await m.until((st) => st.nowPlaying?.playId !== second && st.chat.length === 1);
    expect(s.chat[0]).toMatchObject({
      type: "room",
      message: "The song was skipped by a moderator.",
      userUuid: null,
    });
    await expectInSync(room, d);
    d.close();
    m.close();
  });
});

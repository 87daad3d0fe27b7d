import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { Room } from "../durable/room";
import { PROFILE_RATE, ProfileChanges } from "../durable/room/profile";
import type { Marks } from "../durable/room/publisher";
import { RoomStorage } from "../durable/room/storage";
import type { StatefulMessage } from "../shared/protocol";
import { db } from "../workers/db/client";
import { RULES } from "../workers/lib/abuse-limits";
import { roomConnections } from "../workers/db/schema";
import { assign, makeAvatar, merch, wear } from "./avatars-helpers";
import { accountWithRoles, admin, signUp, user } from "./helpers";
import { relayCounts, relayRoom } from "./relay-helpers";
import { connect, newRoom, person, stub, type RoomClient } from "./room-helpers";
import { botPerson, TtfmBot } from "./ttfm-helpers";

vi.setConfig({ testTimeout: 30_000 });

// Issue 15: what a room shows of a person (nickname, avatar, colour, badges) follows the
// account at once, not at the next reconnect. Every socket goes through the real gateway.

const service = { "X-Service-Key": env.SERVICE_KEY! };
const mod = () => accountWithRoles(["user", "moderator"]);
const profileIn = (c: RoomClient, uuid: string) => c.state?.allUserData[uuid]?.userProfile;
/** The frames after index `from` that touched `uuid`'s profile. */
const profileFrames = (c: RoomClient, uuid: string, from: number) =>
  c.messages
    .slice(from)
    .filter(
      (m): m is StatefulMessage =>
        "statePatch" in m &&
        m.statePatch.some((op) => op.path.startsWith(`/allUserData/${uuid}/userProfile`)),
    );

describe("a connected user's profile reaches their rooms at once", () => {
  it("a moderator gives a badge: another socket sees it in an updatedUserProfile frame, and the user's next chat line carries it", async () => {
    const room = newRoom();
    const kim = await signUp({ nickname: "Kim" });
    const kimc = await connect(room, kim);
    const watcher = await connect(room, await person());
    await watcher.until((s) => s.allUserData[kim.uuid]?.userProfile.nickname === "Kim", "Kim");
    expect(profileIn(watcher, kim.uuid)!.badges).toEqual([]);
    const from = watcher.messages.length;

    const res = await user("/users/change-badges-admin", {
      token: (await mod()).token,
      body: { userUuid: kim.uuid, badges: ["VERIFIED"] },
    });
    expect(res.status).toBe(201);
    await watcher.until((s) => s.allUserData[kim.uuid].userProfile.badges.includes("VERIFIED"));
    const [frame] = profileFrames(watcher, kim.uuid, from);
    expect(frame.name).toBe("updatedUserProfile");
    // Only the profile moved: no list of people was rewritten for it.
    expect(frame.statePatch.every((op) => op.path.startsWith("/allUserData/"))).toBe(true);
    await kimc.until((s) => s.allUserData[kim.uuid].userProfile.badges.includes("VERIFIED"));

    // The socket's own chat identity took it too.
    kimc.send({ action: "sendChat", message: "hello", clientId: "c1" });
    const line = await watcher.until((s) => s.chat.some((m) => m.clientId === "c1"));
    expect(line.chat.find((m) => m.clientId === "c1")!.badges).toEqual(["VERIFIED"]);

    // The service routes add and remove as well.
    const added = await user("/users/add-badges-service", {
      headers: service,
      body: { userUuid: kim.uuid, badges: ["STAFF"] },
    });
    expect(added.status).toBe(201);
    await watcher.until((s) => s.allUserData[kim.uuid].userProfile.badges.includes("STAFF"));
    await user("/users/remove-badges-service", {
      headers: service,
      body: { userUuid: kim.uuid, badges: ["VERIFIED", "STAFF"] },
    });
    await watcher.until((s) => s.allUserData[kim.uuid].userProfile.badges.length === 0);
    expect(watcher.breaches).toEqual([]);
    for (const c of [kimc, watcher]) c.close();
  });

  it("a user's own nickname edit and a moderator's profile edit show in the room, and the next chat line has the new name", async () => {
    const room = newRoom();
    const a = await signUp({ nickname: "Before" });
    const ac = await connect(room, a);
    const watcher = await connect(room, await person());
    await watcher.until((s) => s.allUserData[a.uuid]?.userProfile.nickname === "Before");

    const own = await user("/users/profile", { token: a.token, body: { nickname: "After" } });
    expect(own.status).toBe(200);
    await watcher.until((s) => s.allUserData[a.uuid].userProfile.nickname === "After", "After");
    ac.send({ action: "sendChat", message: "renamed", clientId: "r1" });
    const s = await watcher.until((st) => st.chat.some((m) => m.clientId === "r1"));
    expect(s.chat.find((m) => m.clientId === "r1")!.userName).toBe("After");

    const byMod = await user("/users/profile-admin", {
      token: (await mod()).token,
      body: { userUuid: a.uuid, nickname: "Renamed", color: "00AA00" },
    });
    expect(byMod.status).toBe(201);
    const after = await watcher.until(
      (st) => st.allUserData[a.uuid].userProfile.nickname === "Renamed",
      "the moderator's name",
    );
    expect(after.allUserData[a.uuid].userProfile.color).toBe("00AA00");
    expect(watcher.breaches).toEqual([]);
    for (const c of [ac, watcher]) c.close();
  });

  it("wearing an avatar, taking it off, and losing an assigned one change the room's avatar for that user", async () => {
    const room = newRoom();
    const a = await signUp(); // a new account wears a default avatar already
    const boss = await admin();
    const av = await makeAvatar(boss.token);
    const ac = await connect(room, a);
    const watcher = await connect(room, await person());
    await watcher.until((s) => a.uuid in s.allUserData, "a listed");
    expect(profileIn(watcher, a.uuid)!.avatarId).not.toBe(av.slug);

    expect((await wear(a.token, av.slug)).status).toBe(200);
    await watcher.until((s) => s.allUserData[a.uuid].userProfile.avatarId === av.slug, "worn");
    expect((await wear(a.token, null)).status).toBe(200);
    await watcher.until((s) => s.allUserData[a.uuid].userProfile.avatarId === "default", "off");

    // A private avatar given by the team, worn, then taken back: the room draws the default.
    const given = await makeAvatar(boss.token, { status: "PRIVATE" });
    const assigned = await assign(boss.token, given.slug, a.uuid);
    expect(assigned.status).toBe(201);
    expect((await wear(a.token, given.slug)).status).toBe(200);
    await watcher.until((s) => s.allUserData[a.uuid].userProfile.avatarId === given.slug);
    const taken = await merch(`/avatar-assignment/${assigned.body.id}`, {
      method: "DELETE",
      token: boss.token,
    });
    expect(taken.status).toBe(200);
    await watcher.until(
      (s) => s.allUserData[a.uuid].userProfile.avatarId === "default",
      "the default after the assignment went",
    );
    for (const c of [ac, watcher]) c.close();
  });

  it("a user with sockets in two rooms updates in both; a room that no longer holds them is forgotten", async () => {
    const [r1, r2, r3] = [newRoom(), newRoom(), newRoom()];
    const a = await signUp({ nickname: "Two Rooms" });
    const mine = [await connect(r1, a), await connect(r2, a)];
    const watchers = [await connect(r1, await person()), await connect(r2, await person())];
    // In r3 the user came and went: their grace ran out, so r3 holds nobody of theirs.
    const gone = await connect(r3, a);
    gone.close();
    await vi.waitFor(async () => {
      const due = await runInDurableObject(stub(r3), (_o: Room, state) => {
        const key = `grace:${a.uuid}`;
        state.storage.sql.exec(`UPDATE room_schedule SET due = 0 WHERE key = ?`, key);
        return state.storage.sql.exec(`SELECT due FROM room_schedule WHERE key = ?`, key).toArray();
      });
      expect(due).toEqual([{ due: 0 }]);
    });
    expect(await runDurableObjectAlarm(stub(r3))).toBe(true);

    await user("/users/change-badges-admin", {
      token: (await mod()).token,
      body: { userUuid: a.uuid, badges: ["PLATINUM"] },
    });
    for (const w of watchers)
      await w.until((s) => s.allUserData[a.uuid]?.userProfile.badges[0] === "PLATINUM");
    const rows = await db(env)
      .select({ room: roomConnections.roomUuid })
      .from(roomConnections)
      .where(eq(roomConnections.userUuid, a.uuid))
      .all();
    expect(rows.map((r) => r.room).sort()).toEqual([r1, r2].sort());
    expect(
      await db(env)
        .select()
        .from(roomConnections)
        .where(and(eq(roomConnections.userUuid, a.uuid), eq(roomConnections.roomUuid, r3)))
        .all(),
    ).toEqual([]);
    for (const c of [...mine, ...watchers]) c.close();
  });

  it("a loop of 70 concurrent renames: 60 are taken and reach the room, 10 get 429 and change nothing", async () => {
    const room = newRoom();
    const a = await signUp({ nickname: "Looper" });
    const ac = await connect(room, a);
    const results = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        user("/users/profile", { token: a.token, body: { nickname: `Loop ${i}` } }),
      ),
    );
    const refused = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(RULES.roomFaceEdit.limit);
    expect(refused).toHaveLength(70 - RULES.roomFaceEdit.limit);
    expect(refused[0].body.message).toMatch(/changed your name or look too often/);
    expect(refused[0].headers.get("retry-after")).toMatch(/^\d+$/);
    // The stored name is one of the accepted ones, and the room ends on it.
    const accepted = new Set(results.flatMap((r, i) => (r.status === 200 ? [`Loop ${i}`] : [])));
    const now = await user("/users/profile", { token: a.token, method: "GET" });
    expect(accepted.has(now.body.nickname)).toBe(true);
    await ac.until((st) => st.allUserData[a.uuid]?.userProfile.nickname === now.body.nickname);
    // Edits rooms do not show (socials) are not counted.
    const socials = await user("/users/user-socials", {
      token: a.token,
      body: { instagram: "looper" },
    });
    expect(socials.status).toBe(200);
    ac.close();
  });

  it("sockets on relays hear the change as the room's own sockets do", async () => {
    const room = newRoom();
    await relayRoom(room, 2, 2);
    const a = await signUp({ nickname: "Relayed" });
    const direct = [await connect(room, a), await connect(room, await person())];
    const relayed: RoomClient[] = [];
    for (let i = 0; i < 4; i++) relayed.push(await connect(room, await person()));
    expect((await relayCounts(room, 4)).reduce((x, y) => x + y, 0)).toBe(4);
    await Promise.all(relayed.map((c) => c.until((s) => a.uuid in s.allUserData, "a listed")));

    await user("/users/change-badges-admin", {
      token: (await mod()).token,
      body: { userUuid: a.uuid, badges: ["JQBX"] },
    });
    await Promise.all(
      [...direct, ...relayed].map((c) =>
        c.until((s) => s.allUserData[a.uuid].userProfile.badges[0] === "JQBX", "the badge"),
      ),
    );
    for (const c of [...direct, ...relayed]) expect(c.breaches).toEqual([]);
    for (const c of [...direct, ...relayed]) c.close();
  });

  it("a tt.live bot in the room hears updatedUserProfile with the new profile in allUserData", async () => {
    const room = newRoom();
    const a = await signUp({ nickname: "Seen By Bot" });
    const ac = await connect(room, a);
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    await bot.join(room);
    await bot.has((s) => a.uuid in s.allUserData && me.uuid in s.allUserData, "both listed");

    await user("/users/profile", { token: a.token, body: { nickname: "Bot Saw This" } });
    await bot.has((s) => s.allUserData[a.uuid].userProfile.nickname === "Bot Saw This", "renamed");
    expect(bot.named("updatedUserProfile").length).toBeGreaterThan(0);
    expect(bot.breaches).toEqual([]);
    ac.close();
    bot.ws.close();
  });
});

describe("refreshUser's profile is checked", () => {
  it("refuses an unbounded or malformed profile and changes nothing", async () => {
    const room = newRoom();
    const a = await signUp({ nickname: "Steady" });
    const ac = await connect(room, a);
    const good = { name: "Fine", avatarId: "default", color: "562DF9", badges: [] };
    const bad = [
      { ...good, name: "x".repeat(201) },
      { ...good, badges: Array.from({ length: 101 }, (_, i) => `B${i}`) },
      { ...good, badges: ["y".repeat(201)] },
      { ...good, color: 7 },
      { name: "no other fields" },
    ];
    await runInDurableObject(stub(room), (o: Room) => {
      for (const profile of bad)
        expect(() =>
          o.refreshUser(a.uuid, { roles: ["user"], sessionVersion: 0, profile: profile as never }),
        ).toThrow(/Too big|expected/);
    });
    expect(
      await runInDurableObject(stub(room), (_o: Room, state) =>
        state.storage.sql
          .exec<{ json: string }>(`SELECT json FROM room_profiles WHERE uuid = ?`, a.uuid)
          .one(),
      ),
    ).toMatchObject({ json: expect.stringContaining('"nickname":"Steady"') });
    // The same call with a bounded profile is taken.
    expect(
      await stub(room).refreshUser(a.uuid, { roles: ["user"], sessionVersion: 0, profile: good }),
    ).toBe(true);
    await ac.until((s) => s.allUserData[a.uuid].userProfile.nickname === "Fine");
    ac.close();
  });

  it("a flood of changes publishes at most PROFILE_RATE of them; the rest wait in the table for the next frame", async () => {
    const room = newRoom();
    const a = await person();
    const ac = await connect(room, a);
    const marks = await runInDurableObject(stub(room), (_o: Room, state) => {
      let now = 1_000_000;
      const names: string[] = [];
      const counter: Marks = { mark: (_keys, name) => void names.push(name) };
      const storage = new RoomStorage(state.storage.sql, () => room);
      const changes = new ProfileChanges(storage, counter, () => now);
      const face = (name: string) => ({ name, avatarId: "default", color: "562DF9", badges: [] });
      const taken: boolean[] = [];
      for (let i = 0; i < PROFILE_RATE.burst + 3; i++)
        taken.push(changes.apply(a.uuid, face(`N${i}`)));
      const stored = storage.profile(a.uuid)!.nickname;
      const burst = names.length;
      const same = changes.apply(a.uuid, face(`N${PROFILE_RATE.burst + 2}`)); // no change: no mark
      now += 1000 / PROFILE_RATE.perSecond; // one token back
      changes.apply(a.uuid, face("Later"));
      return { taken, stored, burst, same, after: names.length, names };
    });
    expect(marks.taken.every(Boolean)).toBe(true);
    expect(marks.stored).toBe(`N${PROFILE_RATE.burst + 2}`);
    expect(marks.burst).toBe(PROFILE_RATE.burst);
    expect(marks.same).toBe(false);
    expect(marks.after).toBe(PROFILE_RATE.burst + 1);
    expect(new Set(marks.names)).toEqual(new Set(["updatedUserProfile"]));
    ac.close();
  });
});

import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { ServerMessage } from "../shared/protocol";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import {
  account,
  applySettings,
  connect,
  endGrace,
  expectInSync,
  newRoom,
  person,
  seedQueue,
  takeSeat,
  uuids,
  type RoomClient,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** allUserData, visibleDjs, floorUsers (REFERENCE.md "Live room state"), and the voter-only yourVote. */

const yourVotes = (c: RoomClient, from = 0) =>
  c.messages
    .slice(from)
    .filter((m): m is Extract<ServerMessage, { name: "yourVote" }> => m.name === "yourVote");

describe("Room user data", () => {
  it("allUserData holds every present user with their profile and floor spot; floorUsers and visibleDjs follow the stage", async () => {
    const room = newRoom();
    const alice = await account();
    await seedQueue(alice.uuid, 2);
    const guest = await person("guest");
    const bare = await person();
    const a = await connect(room, alice);
    const g = await connect(room, guest);
    const b = await connect(room, bare);
    const s = await a.until(
      (st) => Object.keys(st.allUserData).length === 3,
      "three users in allUserData",
    );
    const row = (await db(env).select().from(users).where(eq(users.uuid, alice.uuid)).get())!;
    expect(s.allUserData[alice.uuid].userProfile).toEqual({
      uuid: alice.uuid,
      nickname: row.nickname,
      avatarId: row.avatarId ?? "default",
      color: row.color,
      badges: [...row.badges],
    });
    expect(s.allUserData[guest.uuid].userProfile).toMatchObject({
      uuid: guest.uuid,
      nickname: `Guest ${guest.uuid.slice(0, 4).toUpperCase()}`,
    });
    expect(s.allUserData[bare.uuid].userProfile.uuid).toBe(bare.uuid);
    for (const u of [alice, guest, bare]) {
      const { x, y } = s.allUserData[u.uuid].position;
      for (const v of [x, y]) expect(v >= 0 && v < 1).toBe(true);
      expect(Object.keys(s.allUserData[u.uuid]).sort()).toEqual(["position", "userProfile"]); // no songVotes
    }
    // Guests are on the floor (and in allUserData) but not in allUsers.
    expect(uuids(s.floorUsers).sort()).toEqual([alice.uuid, guest.uuid, bare.uuid].sort());
    expect(uuids(s.allUsers)).not.toContain(guest.uuid);
    expect(s.visibleDjs).toEqual([]);

    await takeSeat(a, alice.uuid);
    const seated = await g.until(
      (st) => st.visibleDjs.length === 1 && st.floorUsers.length === 2,
      "alice on stage",
    );
    expect(seated.visibleDjs).toEqual(seated.djs);
    expect(uuids(seated.floorUsers)).toEqual(uuids(seated.audienceUsers));
    expect(uuids(seated.floorUsers)).not.toContain(alice.uuid);

    b.close();
    await endGrace(room);
    await a.until((st) => !(bare.uuid in st.allUserData), "bare gone from allUserData");
    for (const c of [a, g]) await expectInSync(room, c);
    // A late joiner's full state equals the patched state of the others, key order included.
    const late = await connect(room, await person());
    await a.until((st) => Object.keys(st.allUserData).length === 3);
    await expectInSync(room, late);
    await expectInSync(room, a);
    for (const c of [a, g, late]) c.close();
  });

  it("a voter's vote reaches only their own sockets (yourVote); nobody's frames carry songVotes", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 }); // a dislike here must not skip the song
    const dj = await person();
    await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await d.until((s) => s.nowPlaying !== null, "a song playing");
    const voter = await person();
    const v1 = await connect(room, voter);
    const v2 = await connect(room, voter); // a second tab
    const other = await connect(room, await person());
    const guestC = await connect(room, await person("guest"));

    // Each socket's first yourVote came with its full state ({}: no vote yet).
    expect(yourVotes(v1).map((m) => m.params.songVotes)).toEqual([{}]);
    const [v1From, v2From] = [v1.messages.length, v2.messages.length];
    v1.send({ action: "voteOnSong", songVotes: { like: true } });
    const first = await v1.waitFor((m) => m.name === "yourVote", v1From);
    expect(first).toEqual({ name: "yourVote", params: { songVotes: { like: true } } });
    await v2.waitFor((m) => m.name === "yourVote", v2From);
    v1.send({ action: "voteOnSong", songVotes: { star: true } });
    await v1.until((s) => s.voteCounts.stars === 1 && s.voteCounts.likes === 1);
    await vi.waitFor(
      () => expect(yourVotes(v1).at(-1)?.params.songVotes).toEqual({ like: true, star: true }),
      { timeout: 5000 },
    );
    v1.send({ action: "voteOnSong", songVotes: { like: false } });
    await vi.waitFor(
      () => expect(yourVotes(v2).at(-1)?.params.songVotes).toEqual({ like: false, star: true }),
      { timeout: 5000 },
    );
    await other.until((s) => s.voteCounts.dislikes === 1);

    // A refused vote gets no yourVote.
    const before = yourVotes(guestC).length;
    expect(await guestC.refused({ action: "voteOnSong", songVotes: { star: true } })).toBe(
      "Sign up to vote on songs.",
    );
    expect(yourVotes(guestC).length).toBe(before);

    // joinRoom answers the state and the asker's own vote.
    const mark = v2.messages.length;
    v2.send({ action: "joinRoom" });
    const answer = await v2.waitFor((m) => m.name === "yourVote", mark);
    expect(answer).toEqual({
      name: "yourVote",
      params: { songVotes: { like: false, star: true } },
    });
    const mark2 = other.messages.length;
    other.send({ action: "joinRoom" });
    expect(await other.waitFor((m) => m.name === "yourVote", mark2)).toEqual({
      name: "yourVote",
      params: { songVotes: {} },
    });

    for (const c of [d, other, guestC]) {
      expect(JSON.stringify(c.messages)).not.toContain('songVotes":{"like');
      expect(yourVotes(c).every((m) => Object.keys(m.params.songVotes).length === 0)).toBe(true);
      expect(c.frames().some((f) => JSON.stringify(f.statePatch).includes("songVotes"))).toBe(
        false,
      );
    }
    for (const c of [v1, v2])
      expect(c.frames().some((f) => JSON.stringify(f.statePatch).includes("songVotes"))).toBe(
        false,
      );
    for (const c of [d, v1, other]) await expectInSync(room, c);
    for (const c of [d, v1, v2, other, guestC]) c.close();
  });

  it("a user's floor position is stable across reconnects (inside the grace and after it)", async () => {
    const room = newRoom();
    const who = await account();
    const stayer = await person();
    const stay = await connect(room, stayer);
    const c1 = await connect(room, who);
    const first = (await stay.until((s) => who.uuid in s.allUserData)).allUserData[who.uuid]
      .position;
    c1.close();
    const c2 = await connect(room, who); // inside the grace
    expect(c2.state!.allUserData[who.uuid].position).toEqual(first);
    c2.close();
    await endGrace(room);
    await stay.until((s) => !(who.uuid in s.allUserData), "gone after the grace");
    const c3 = await connect(room, who);
    expect(c3.state!.allUserData[who.uuid].position).toEqual(first);
    expect(c3.state!.allUserData[who.uuid].userProfile.uuid).toBe(who.uuid);
    // Another user stands somewhere else.
    expect(c3.state!.allUserData[stayer.uuid].position).not.toEqual(first);
    await expectInSync(room, stay);
    for (const c of [stay, c3]) c.close();
  });
});

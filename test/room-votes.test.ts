import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { crateSongs } from "../workers/db/schema";
import { specialCrate } from "../workers/crates/crate-repo";
import {
  applySettings,
  connect,
  expectInSync,
  newRoom,
  person,
  seedQueue,
  takeSeat,
  type RoomClient,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** Votes (issue 4 "Votes"): counts, vibe, stars to likes, auto-skip, and coalesced fan-out. */

async function roomWithSong(room: string) {
  const dj = await person();
  const songs = await seedQueue(dj.uuid, 2);
  const d = await connect(room, dj);
  await takeSeat(d, dj.uuid);
  await d.until((s) => s.nowPlaying !== null, "a song playing");
  return { dj, d, songs };
}

describe("Room votes", () => {
  it("100 sockets voting at once: exact counts, and each socket gets a few coalesced frames", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const { d } = await roomWithSong(room);
    const voters: RoomClient[] = [];
    for (let i = 0; i < 100; i++) voters.push(await connect(room, await person()));
    // Everyone has settled on the same seq before the storm.
    await Promise.all(voters.map((v) => v.until((s) => s.allUsers.length === 101, "all present")));
    const marks = voters.map((v) => v.frames().length);

    voters.forEach((v, i) =>
      v.send({ action: "voteOnSong", songVotes: { like: i % 4 !== 0, star: i % 10 === 0 } }),
    );
    await Promise.all(
      voters.map((v) =>
        v.until(
          (s) =>
            s.voteCounts.likes === 75 && s.voteCounts.dislikes === 25 && s.voteCounts.stars === 10,
          "counts",
        ),
      ),
    );
    for (const [i, v] of voters.entries()) {
      const storm = v.frames().slice(marks[i]);
      // 100 votes, but far fewer frames: one per tick, carrying only the counts and the vibe.
      expect(storm.length).toBeLessThanOrEqual(12);
      for (const f of storm) {
        expect(f.name).toBe("votedOnSong");
        for (const op of f.statePatch) expect(op.path).toMatch(/^\/(voteCounts|vibeMeter)/);
      }
    }
    const s = voters[0].state!;
    expect(s.vibeMeter).toBeCloseTo(50 / 101, 3); // 100 voters and the DJ (who took a seat) are active
    await expectInSync(room, voters[99]);
    await expectInSync(room, d);
    for (const v of voters) v.close();
    d.close();
  });

  it("a retried vote counts once; a like can change to a dislike; a song change clears the votes", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const { d } = await roomWithSong(room);
    const fan = await connect(room, await person());
    fan.send({ action: "voteOnSong", songVotes: { like: true } });
    fan.send({ action: "voteOnSong", songVotes: { like: true } });
    await fan.until((s) => s.voteCounts.likes === 1);
    fan.send({ action: "voteOnSong", songVotes: { like: false } });
    const s = await fan.until((st) => st.voteCounts.dislikes === 1);
    expect(s.voteCounts).toEqual({ likes: 0, dislikes: 1, stars: 0 });
    expect(await fan.refused({ action: "voteOnSong", songVotes: {} } as never)).toMatch(
      /like or star/,
    );
    d.send({ action: "skipSong" });
    await fan.until(
      (st) =>
        st.voteCounts.dislikes === 0 &&
        st.nowPlaying !== null &&
        st.nowPlaying.playId !== s.nowPlaying!.playId,
    );
    await expectInSync(room, fan);
    fan.close();
    d.close();
  });

  it("a star adds the song to the voter's likes crate once; guests cannot star", async () => {
    const room = newRoom();
    const { d, songs } = await roomWithSong(room);
    const fan = await person();
    const f = await connect(room, fan);
    f.send({ action: "voteOnSong", songVotes: { star: true } });
    f.send({ action: "voteOnSong", songVotes: { star: false } });
    f.send({ action: "voteOnSong", songVotes: { star: true } });
    await f.until((s) => s.voteCounts.stars === 1);
    const likes = await specialCrate(env, fan.uuid, "likes");
    const rows = await vi.waitFor(
      async () => {
        const r = await db(env)
          .select()
          .from(crateSongs)
          .where(eq(crateSongs.crateId, likes.id))
          .all();
        if (!r.length) throw new Error("not yet");
        return r;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(rows.map((r) => r.songId)).toEqual([songs[0].id]);
    const g = await connect(room, await person("guest"));
    // Guests may no longer vote at all (issue 11): the refusal names the sign-up.
    expect(await g.refused({ action: "voteOnSong", songVotes: { star: true } })).toBe(
      "Sign up to vote on songs.",
    );
    for (const c of [d, f, g]) c.close();
  });

  it("auto-skips when dislikes reach the ratio of active listeners (not of everyone present)", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0.5 });
    const { d } = await roomWithSong(room);
    const first = d.state!.nowPlaying!.playId;
    // Six idle listeners are present but never act: they do not raise the threshold.
    const idle: RoomClient[] = [];
    for (let i = 0; i < 6; i++) idle.push(await connect(room, await person()));
    const [x, y] = [await connect(room, await person()), await connect(room, await person())];
    // Active: the DJ (took a seat), x and y = 3; threshold ceil(0.5 x 3) = 2.
    y.send({ action: "voteOnSong", songVotes: { like: true } });
    await d.until((s) => s.voteCounts.likes === 1);
    x.send({ action: "voteOnSong", songVotes: { like: false } });
    await d.until((s) => s.voteCounts.dislikes === 1);
    expect(d.state!.nowPlaying!.playId).toBe(first);
    y.send({ action: "voteOnSong", songVotes: { like: false } }); // changes their like: 2 dislikes
    await d.until((s) => s.nowPlaying !== null && s.nowPlaying.playId !== first, "auto-skip");
    for (const c of [d, x, y, ...idle]) c.close();
  });

  it("anything that does not parse gets an error and changes nothing", async () => {
    const room = newRoom();
    const { d } = await roomWithSong(room);
    const before = d.seq;
    for (const bad of [
      { action: "voteOnSong", songVotes: { like: "yes" } },
      { action: "addDj", song: { songId: 5 } },
      { action: "updateNextSong" },
      { action: "removeDj", djUuid: "" },
    ]) {
      expect(await d.refused(bad as never)).toMatch(/Invalid message/);
    }
    expect(d.seq).toBe(before);
    d.send({
      action: "updateNextSong",
      song: { songId: "s1", trackName: "Next", artistName: "Up", duration: 100 },
    });
    const s = await d.until((st) => st.djs[0]?.nextSong?.trackName === "Next");
    expect(d.frames().at(-1)!.name).toBe("updatedNextSong");
    expect(s.djs[0].nextSong).toEqual({
      songId: "s1",
      trackName: "Next",
      artistName: "Up",
      duration: 100,
    });
    await expectInSync(room, d);
    d.close();
  });
});

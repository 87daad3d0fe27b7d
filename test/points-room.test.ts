import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { votePointsEvents, type VoteForPoints } from "../durable/room/points";
import { LIFETIME_BOARD, seasonBoard } from "../workers/queues/points";
import { signToken } from "../workers/lib/jwt";
import { admin } from "./helpers";
import { createSeason } from "./points-helpers";
import { accountRow, connect, djPlaying, newRoom, person } from "./room-helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Points from room votes (issue 6): a like earns the DJ 1, a star 2, once per listener and kind. */

const vote = (over: Partial<VoteForPoints>): VoteForPoints => ({
  playId: "p1",
  djUuid: "dj",
  voterUuid: "fan",
  voterType: "user",
  like: undefined,
  star: undefined,
  at: 1000,
  ...over,
});

describe("vote points rules", () => {
  it("a like earns 1 and a star 2, with ids that make a repeated vote count once", () => {
    expect(votePointsEvents(vote({ like: true, star: true }))).toEqual([
      {
        eventId: "vote:p1:fan:like",
        userUuid: "dj",
        points: 1,
        occurredAt: 1000,
        source: "room",
        data: { playId: "p1", voterUuid: "fan", kind: "like" },
      },
      {
        eventId: "vote:p1:fan:star",
        userUuid: "dj",
        points: 2,
        occurredAt: 1000,
        source: "room",
        data: { playId: "p1", voterUuid: "fan", kind: "star" },
      },
    ]);
    // An unchanged like sends nothing again; a dislike or a withdrawn star earns nothing.
    expect(votePointsEvents(vote({ like: true, before: { vote_like: 1, star: 0 } }))).toEqual([]);
    expect(votePointsEvents(vote({ like: false }))).toEqual([]);
    expect(votePointsEvents(vote({ star: false, before: { vote_like: null, star: 1 } }))).toEqual(
      [],
    );
    expect(
      votePointsEvents(vote({ star: true, before: { vote_like: 1, star: 0 } })).map(
        (e) => e.points,
      ),
    ).toEqual([2]);
  });

  it("guests, bots, ghosts and the DJ themself earn nobody points", () => {
    for (const voterType of ["guest", "bot", "ghost"] as const)
      expect(votePointsEvents(vote({ voterType, like: true, star: true }))).toEqual([]);
    expect(votePointsEvents(vote({ voterUuid: "dj", like: true, star: true }))).toEqual([]);
  });
});

describe("room votes to points", () => {
  it("listeners' likes and stars raise the playing DJ's points on the season and lifetime boards, once each", async () => {
    const now = Date.now();
    const season = await createSeason(
      (await admin()).token,
      `Room season ${now}`,
      now,
      now + 86_400_000,
    );
    const room = newRoom();
    const { dj, d } = await djPlaying(room);

    // A bot's like counts but earns nothing (guests may no longer vote at all, issue 11).
    const bot = crypto.randomUUID();
    await accountRow(bot, ["bot"]); // a bot has an account, which the gateway checks
    const guest = {
      uuid: bot,
      token: await signToken(env, { sub: bot, type: "bot", roles: ["bot"] }),
    };
    const [fan, other] = [await person(), await person()];
    const f = await connect(room, fan);
    const o = await connect(room, other);
    const g = await connect(room, guest);
    d.send({ action: "voteOnSong", songVotes: { like: true } }); // the DJ's own like: nothing
    g.send({ action: "voteOnSong", songVotes: { like: true } }); // a bot's: nothing
    f.send({ action: "voteOnSong", songVotes: { like: true } }); // +1
    f.send({ action: "voteOnSong", songVotes: { like: false } });
    f.send({ action: "voteOnSong", songVotes: { like: true } }); // back again: still +1 in all
    f.send({ action: "voteOnSong", songVotes: { star: true } }); // +2
    o.send({ action: "voteOnSong", songVotes: { like: true } }); // +1
    await d.until((s) => s.voteCounts.likes === 4 && s.voteCounts.stars === 1, "votes counted");

    const lifetime = env.Leaderboard.getByName(LIFETIME_BOARD);
    await vi.waitFor(async () => expect((await lifetime.rankOf(dj.uuid))?.balance).toBe(4), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await env.Leaderboard.getByName(seasonBoard(season.id)).rankOf(dj.uuid)).toEqual({
      userUuid: dj.uuid,
      balance: 4,
      rank: 1,
    });
    await vi.waitFor(async () => {
      const row = await env.DB.prepare(
        "SELECT balance FROM ranking_status WHERE user_uuid = ? AND season_id = ?",
      )
        .bind(dj.uuid, season.id)
        .first<{ balance: number }>();
      expect(row?.balance).toBe(4);
    });
    // Listeners earn nothing by voting.
    for (const p of [fan, other, guest]) expect(await lifetime.rankOf(p.uuid)).toBeNull();
    for (const c of [d, f, o, g]) c.close();
  });
});

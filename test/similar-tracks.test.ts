import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "../workers/db/client";
import { RULES } from "../workers/lib/abuse-limits";
import { recentSongPlays, type SongRow } from "../workers/db/schema";
import { walks } from "../workers/similar/local";
import { SONG_MSG } from "../workers/songs/messages";
import { runBatch } from "../workers/crates/crate-repo";
import { addSongs, newCrate, pl, seedSong } from "./crate-helpers";
import { guestToken, signUp } from "./helpers";

/**
 * Issue 18, similar tracks from our own data (workers/similar/local.ts): songs liked, crated
 * and played together, and by the same artist, rank above unrelated ones; a seed never
 * suggests itself; other people's private or unverified songs never appear.
 */
const tag = () => crypto.randomUUID().slice(0, 8);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const similar = (token: string, songIds: string[], extra = "") =>
  pl(`/similar-tracks?songIds=${songIds.join(",")}${extra}`, { token });

const like = (token: string, list: SongRow[]) => addSongs(token, "/crate/likes", list);

const idsOf = (body: Body) => (body.songs as { songId: string }[]).map((s) => s.songId);

describe("GET /similar-tracks (local answer)", () => {
  it("ranks co-liked, co-crated and same-artist songs above unrelated ones, never the seed", async () => {
    const t = tag();
    const seed = await seedSong({ artistName: `Seed Artist ${t}`, genre: `Genre ${t}` });
    const liked = await seedSong();
    const crated = await seedSong();
    const sameArtist = await seedSong({ artistName: `seed artist ${t}` });
    const unrelated = await seedSong(); // newest listed: the filler may offer it, last
    for (let i = 0; i < 2; i++) {
      const fan = await signUp();
      await like(fan.token, [seed, liked]);
    }
    const curator = await signUp();
    const crate = await newCrate(curator.token, { crateName: `Mix ${t}` });
    await addSongs(curator.token, `/crate/${crate.crateUuid}`, [seed, crated]);

    const viewer = await signUp();
    const res = await similar(viewer.token, [seed.songId]);
    expect(res.status).toBe(200);
    const ids = idsOf(res.body);
    expect(ids).not.toContain(seed.songId);
    for (const s of [liked, crated, sameArtist]) expect(ids).toContain(s.songId);
    const rank = (s: SongRow) => (ids.includes(s.songId) ? ids.indexOf(s.songId) : Infinity);
    for (const s of [liked, crated, sameArtist]) expect(rank(s)).toBeLessThan(rank(unrelated));
    const reasons = (s: SongRow) =>
      res.body.songs.find((x: Body) => x.songId === s.songId).reasons as string[];
    expect(reasons(liked)).toContain("liked");
    expect(reasons(crated)).toContain("crated");
    expect(reasons(sameArtist)).toContain("artist");
    expect(res.body.songs.length).toBeLessThanOrEqual(8);
    expect(res.body.analysis).toEqual({ status: "OFF", code: null });
  });

  it("counts songs played in the same room close in time, not hours apart or elsewhere", async () => {
    const seed = await seedSong({ genre: null });
    const nearby = await seedSong({ genre: null });
    const hoursLater = await seedSong({ genre: null });
    const otherRoom = await seedSong({ genre: null });
    const room = `room-${tag()}`;
    const t0 = Date.UTC(2026, 0, 1, 20);
    const play = (s: SongRow, slug: string, at: number) => ({
      playId: crypto.randomUUID(),
      roomSlug: slug,
      song: { songId: s.songId, trackName: s.trackName, artistName: s.artistName },
      voteCounts: { likes: 0, dislikes: 0, stars: 0 },
      djUuid: crypto.randomUUID(),
      playedAt: at,
    });
    await db(env)
      .insert(recentSongPlays)
      .values([
        play(seed, room, t0),
        play(nearby, room, t0 + 4 * 60_000),
        play(hoursLater, room, t0 + 5 * 3600_000),
        play(otherRoom, `elsewhere-${tag()}`, t0 + 60_000),
      ]);
    const viewer = await signUp();
    const res = await similar(viewer.token, [seed.songId]);
    expect(res.status).toBe(200);
    const played = (res.body.songs as Body[])
      .filter((s) => s.reasons.includes("played"))
      .map((s) => s.songId);
    expect(played).toEqual([nearby.songId]);
  });

  it("never shows another user's private or unverified song, but shows the viewer their own", async () => {
    const t = tag();
    const owner = await signUp();
    const seed = await seedSong({ artistName: `Shared ${t}` });
    const privateSong = await seedSong({
      artistName: `Shared ${t}`,
      isPublic: false,
      ownerUuid: owner.uuid,
    });
    const unverified = await seedSong({
      artistName: `Shared ${t}`,
      status: "UNVERIFIED",
      isPublic: true,
      ownerUuid: owner.uuid,
    });
    // The owner likes all three together: the strongest signal there is.
    await like(owner.token, [seed, privateSong, unverified]);

    const stranger = await signUp();
    const theirs = idsOf((await similar(stranger.token, [seed.songId])).body);
    expect(theirs).not.toContain(privateSong.songId);
    expect(theirs).not.toContain(unverified.songId);
    // Guests cannot DJ, so they get no suggestions at all.
    expect((await similar(await guestToken(), [seed.songId])).status).toBe(403);

    const own = idsOf((await similar(owner.token, [seed.songId])).body);
    expect(own).toContain(privateSong.songId);
    // Unverified is not playable: not even its owner is offered it.
    expect(own).not.toContain(unverified.songId);
  });

  it("drops duplicates by track and artist, and the seed's own duplicate", async () => {
    const t = tag();
    const seed = await seedSong({ artistName: `Dup ${t}`, trackName: `Same ${t}` });
    const seedTwin = await seedSong({ artistName: `DUP ${t}`, trackName: `same ${t}` });
    const a = await seedSong({ artistName: `Dup ${t}`, trackName: `Other ${t}` });
    const aTwin = await seedSong({ artistName: `Dup ${t}`, trackName: `OTHER ${t}` });
    const viewer = await signUp();
    const ids = idsOf((await similar(viewer.token, [seed.songId])).body);
    expect(ids).not.toContain(seedTwin.songId);
    expect([ids.includes(a.songId), ids.includes(aTwin.songId)].filter(Boolean)).toHaveLength(1);
  });

  it("leaves out what is already in the caller's queue when asked (the DJ's suggestions)", async () => {
    const t = tag();
    const seed = await seedSong({ artistName: `Queue ${t}` });
    const queued = await seedSong({ artistName: `Queue ${t}` });
    const fresh = await seedSong({ artistName: `Queue ${t}` });
    const dj = await signUp();
    await addSongs(dj.token, "/crate/queue", [queued]);
    const all = idsOf((await similar(dj.token, [seed.songId])).body);
    expect(all).toContain(queued.songId);
    const res = await similar(dj.token, [seed.songId], "&excludeQueue=true");
    expect(idsOf(res.body)).toContain(fresh.songId);
    expect(idsOf(res.body)).not.toContain(queued.songId);
  });

  it("answers at most `limit` songs and takes up to 8 seeds", async () => {
    const t = tag();
    const seeds = await Promise.all(
      Array.from({ length: 8 }, () => seedSong({ artistName: `Many ${t}` })),
    );
    await Promise.all(Array.from({ length: 12 }, () => seedSong({ artistName: `Many ${t}` })));
    const viewer = await signUp();
    const res = await similar(
      viewer.token,
      seeds.map((s) => s.songId),
      "&limit=3",
    );
    expect(res.status).toBe(200);
    expect(res.body.songs).toHaveLength(3);
    for (const id of idsOf(res.body)) expect(seeds.map((s) => s.songId)).not.toContain(id);
  });

  it("refuses bad input with a 4xx and a message", async () => {
    const viewer = await signUp();
    const seed = await seedSong();
    const bad = async (q: string, status = 400) => {
      const res = await pl(`/similar-tracks${q}`, { token: viewer.token });
      expect(res.status, q).toBe(status);
      expect(res.body.message, q).toBeTruthy();
    };
    await bad("");
    await bad("?songIds=");
    await bad("?songIds=not-a-uuid");
    await bad("?songIds=1");
    await bad(`?songIds=${Array.from({ length: 9 }, () => crypto.randomUUID()).join(",")}`);
    await bad(`?songIds=${seed.songId}&limit=9`);
    await bad(`?songIds=${seed.songId}&limit=0`);
    await bad(`?songIds=${seed.songId}&limit=two`);
    await bad(`?songIds=${seed.songId}&excludeQueue=maybe`);
    await bad(`?songIds=${"a".repeat(5000)}`);
    await bad(`?songIds=${crypto.randomUUID()}`, 404);
    // Someone else's private song is not theirs to ask about.
    const other = await signUp();
    const hidden = await seedSong({ isPublic: false, ownerUuid: other.uuid });
    const res = await pl(`/similar-tracks?songIds=${hidden.songId}`, { token: viewer.token });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(SONG_MSG.songNotFound);
    expect((await pl(`/similar-tracks?songIds=${seed.songId}`)).status).toBe(401);
  });

  it("reads through indexes only: no walk scans a table or sorts an unbounded set", async () => {
    const seed = await seedSong({ genre: "House" });
    const plans: string[] = [];
    for (const w of walks([seed])) {
      const rows = await db(env).all<{ detail: string }>(
        sql`explain query plan select id, sum(w) as w, why from (${w}) group by id, why`,
      );
      plans.push(...rows.map((r) => r.detail));
    }
    // The one scan is the filler's walk of recent plays by rowid, newest first, 40 rows.
    expect(
      plans.filter((d) => /^SCAN (songs|crate_songs|crates|recent_song_plays)\b/.test(d)),
    ).toEqual(["SCAN recent_song_plays"]);
    expect(plans.filter((d) => d.includes("FOR ORDER BY"))).toEqual([]);
    for (const index of [
      "crate_songs_song_idx",
      "crate_songs_crate_pos",
      "recent_song_plays_song_idx",
      "recent_song_plays_room_idx",
      "songs_artist_track_lower_idx",
      "songs_genre_lower_idx",
    ])
      expect(
        plans.some((d) => d.includes(index)),
        index,
      ).toBe(true);
  });

  it("reads a bounded number of rows however big the seed's crates and history are", async () => {
    const t = tag();
    const seed = await seedSong({ artistName: `Big ${t}`, genre: `Big ${t}` });
    const owner = await signUp();
    const crate = await newCrate(owner.token, { crateName: `Huge ${t}` });
    // 3,000 songs of the same artist and genre, all in one crate with the seed in the middle,
    // and the seed played 200 times in a busy room (a song every minute).
    await env.DB.prepare(
      `with recursive n(i) as (select 0 union all select i + 1 from n where i < 2999)
       insert into songs (song_id, song_short_id, track_name, artist_name, genre, duration, status, is_public, created_at, updated_at)
       select lower(hex(randomblob(16))), 'b' || ?1 || i, 'Big ' || i, ?2, ?3, 200, 'VERIFIED', 1, 0, 0 from n`,
    )
      .bind(t, seed.artistName, seed.genre)
      .run();
    await env.DB.prepare(
      `insert into crate_songs (crate_song_uuid, crate_id, song_id, position, created_at)
       select lower(hex(randomblob(16))), c.id, s.id, row_number() over (order by s.id) - 1, 0
       from songs s, crates c where c.crate_uuid = ?1 and s.artist_name = ?2 and s.id <> ?3`,
    )
      .bind(crate.crateUuid, seed.artistName, seed.id)
      .run();
    await env.DB.prepare(
      `update crate_songs set position = position + 1 where crate_id = (select id from crates where crate_uuid = ?1) and position >= 1500`,
    )
      .bind(crate.crateUuid)
      .run();
    await env.DB.prepare(
      `insert into crate_songs (crate_song_uuid, crate_id, song_id, position, created_at)
       select ?1, id, ?2, 1500, 0 from crates where crate_uuid = ?3`,
    )
      .bind(crypto.randomUUID(), seed.id, crate.crateUuid)
      .run();
    const room = `busy-${t}`;
    const first = await env.DB.prepare(
      `select min(id) as id from songs where artist_name = ?1 and id <> ?2`,
    )
      .bind(seed.artistName, seed.id)
      .first<{ id: number }>();
    await env.DB.prepare(
      `with recursive n(i) as (select 0 union all select i + 1 from n where i < 199)
       insert into recent_song_plays (play_id, room_slug, song, vote_counts, dj_uuid, played_at)
       select ?1 || n.i, ?2, json_object('songId', case when n.i % 2 = 0 then ?3 else s.song_id end),
         '{}', 'dj', 1700000000000 + n.i * 60000
       from n join songs s on s.id = ?4 + n.i`,
    )
      .bind(`p-${t}-`, room, seed.songId, first!.id)
      .run();

    const results = await runBatch(
      env,
      walks([seed]).map((w) => sql`select id, sum(w) as w, why from (${w}) group by id, why`),
    );
    const rowsRead = results.reduce((n, r) => n + (r.meta.rows_read ?? 0), 0);
    console.log(
      `similar tracks, one seed: ${rowsRead} rows read (3,000-song crate, 200 plays)`,
      results.map((r) => r.meta.rows_read),
    );
    // Crate: 21 neighbours; plays: the seed's newest 12, each with the room's plays 20 minutes
    // either side (41 here); artist 50; genre 60; fillers 80. Unbounded, the crate alone would
    // read 3,000 and the plays 200 x 200.
    expect(rowsRead).toBeLessThan(2500);
    const res = await similar((await signUp()).token, [seed.songId]);
    expect(res.status).toBe(200);
    expect(res.body.songs).toHaveLength(8);
  });

  it("answers repeats from the cache, and a flood of new questions gets 429", async () => {
    const t = tag();
    const viewer = await signUp();
    const limit = RULES.similarQueryPerAccount.limit;
    const ids = Array.from({ length: limit + 1 }, () => crypto.randomUUID());
    await env.DB.prepare(
      `insert into songs (song_id, song_short_id, track_name, artist_name, duration, status, is_public, created_at, updated_at)
       select value, 'f' || ?2 || key, 'Flood ' || key, 'Flood ' || ?2, 200, 'VERIFIED', 1, 0, 0 from json_each(?1)`,
    )
      .bind(JSON.stringify(ids), t)
      .run();
    expect(ids).toHaveLength(limit + 1);
    // The same question again and again costs one computation.
    for (let i = 0; i < 5; i++) expect((await similar(viewer.token, [ids[0]])).status).toBe(200);
    for (const id of ids.slice(1, limit))
      expect((await similar(viewer.token, [id])).status).toBe(200);
    const over = await similar(viewer.token, [ids[limit]]);
    expect(over.status).toBe(429);
    expect(over.body.message).toMatch(/Too many similar-track requests/);
    // Someone else is not affected.
    expect((await similar((await signUp()).token, [ids[limit]])).status).toBe(200);
  });
});

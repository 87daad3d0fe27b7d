import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { albums, artists, genres, songs } from "../workers/db/schema";
import { importSongSchema, matchWhere } from "../workers/playlist-service/catalogue-import";
import { SONG_MSG } from "../workers/songs/messages";
import { pl, seedSong } from "./crate-helpers";
import { admin, countRows, guestToken, signUp } from "./helpers";

const SERVICE = { "X-Service-Key": "test-service-key" };
const tag = () => crypto.randomUUID().slice(0, 8);

describe("GET /api/v1/genres", () => {
  it("lists genres by name, filtered by prefix (ignoring case) and ids", async () => {
    const t = tag();
    const rows = await db(env)
      .insert(genres)
      .values([{ name: `zz${t} Rock` }, { name: `zz${t} Pop` }, { name: `zz${t}% odd` }])
      .returning()
      .all();
    const token = await guestToken();
    const res = await pl(`/api/v1/genres?prefix=ZZ${t}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((g: { name: string }) => g.name)).toEqual(
      [`zz${t}% odd`, `zz${t} Pop`, `zz${t} Rock`].sort(),
    );
    expect(res.body.data[0]).toEqual({ id: expect.any(Number), name: expect.any(String) });
    expect(
      (await pl(`/api/v1/genres?prefix=${encodeURIComponent(`zz${t}%`)}`, { token })).body.data,
    ).toEqual([{ id: rows[2].id, name: `zz${t}% odd` }]);
    expect(
      (await pl(`/api/v1/genres?idIn=${rows[0].id},${rows[1].id}`, { token })).body.data.length,
    ).toBe(2);
    expect((await pl(`/api/v1/genres?limit=1&prefix=zz${t}`, { token })).body.data.length).toBe(1);
    expect((await pl("/api/v1/genres?limit=1024", { token })).status).toBe(200);
    for (const q of ["limit=1025", "limit=0", "idIn=a,b", "idIn=-1"])
      expect((await pl(`/api/v1/genres?${q}`, { token })).status).toBe(400);
    expect((await pl("/api/v1/genres")).status).toBe(401);
  });
});

describe("GET /api/v1/songs", () => {
  it("lists verified public songs, newest first, by genre and artist ignoring case", async () => {
    const g = `genre-${tag()}`;
    const a = await seedSong({ genre: g, artistName: "The Band" });
    const b = await seedSong({ genre: g, artistName: "Other" });
    await seedSong({ genre: g, isPublic: false });
    await seedSong({ genre: g, status: "UNVERIFIED" });
    const token = (await signUp()).token;
    const res = await pl(`/api/v1/songs?genre=${g.toUpperCase()}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 2,
      data: [{ songId: b.songId }, { songId: a.songId }],
    });
    expect((await pl(`/api/v1/songs?genre=${g}&artist=the%20band`, { token })).body).toMatchObject({
      total: 1,
      data: [{ songId: a.songId }],
    });
    expect(
      (await pl(`/api/v1/songs?genre=${g}&limit=1&offset=1`, { token })).body.data.map(
        (s: { songId: string }) => s.songId,
      ),
    ).toEqual([a.songId]);
    for (const q of ["limit=101", "offset=-1", "genre="])
      expect((await pl(`/api/v1/songs?${q}`, { token })).status).toBe(400);
    expect((await pl("/api/v1/songs")).status).toBe(401);
  });

  it("GET /api/v1/songs/{songId} answers listed songs and the caller's own, by uuid or short id", async () => {
    const me = await signUp();
    const listed = await seedSong();
    const mine = await seedSong({ ownerUuid: me.uuid, isPublic: false, status: "PENDING_UPLOAD" });
    const theirs = await seedSong({ ownerUuid: crypto.randomUUID(), isPublic: false });
    expect((await pl(`/api/v1/songs/${listed.songId}`, { token: me.token })).body).toMatchObject({
      songId: listed.songId,
      trackName: listed.trackName,
    });
    expect(
      (await pl(`/api/v1/songs/${listed.songShortId}`, { token: await guestToken() })).body.songId,
    ).toBe(listed.songId);
    expect((await pl(`/api/v1/songs/${mine.songId}`, { token: me.token })).status).toBe(200);
    const hidden = await pl(`/api/v1/songs/${theirs.songId}`, { token: me.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe(SONG_MSG.songNotFound);
    expect((await pl("/api/v1/songs/not!an!id", { token: me.token })).status).toBe(400);
    expect((await pl(`/api/v1/songs/${listed.songId}`)).status).toBe(401);
  });
});

describe("GET /albums and /artists", () => {
  it("page with take/skip and answer the total", async () => {
    const t = tag();
    await db(env)
      .insert(albums)
      .values([
        { name: `A ${t}`, artistName: "X" },
        { name: `B ${t}`, artistName: "X" },
      ]);
    await db(env)
      .insert(artists)
      .values([{ name: `A ${t}` }, { name: `B ${t}` }]);
    const token = await guestToken();
    for (const path of ["/albums", "/artists"]) {
      const all = await pl(`${path}?take=100`, { token });
      expect(all.status).toBe(200);
      expect(all.body.total).toBeGreaterThanOrEqual(2);
      expect(
        all.body.data
          .filter((r: { name: string }) => r.name.endsWith(t))
          .map((r: { name: string }) => r.name),
      ).toEqual([`A ${t}`, `B ${t}`]);
      const page = await pl(`${path}?take=1&skip=1`, { token });
      expect(page.body.data.length).toBe(1);
      expect(page.body.total).toBe(all.body.total);
      for (const q of ["take=0", "take=101", "skip=-1"])
        expect((await pl(`${path}?${q}`, { token })).status).toBe(400);
      expect((await pl(path)).status).toBe(401);
    }
  });
});

const track = (over: Record<string, unknown> = {}) => ({
  trackName: `Song ${tag()}`,
  artistName: "Importer",
  duration: 215,
  musicProviders: { spotify: `sp-${tag()}` },
  thumbnails: { spotify: "https://img.example/1.jpg" },
  ...over,
});
const importOne = (token: string, song: unknown) =>
  pl("/api/v1/track-import", { body: { song }, token });

describe("POST /api/v1/track-import", () => {
  // With no provider configured (this file's env), an import is the importer's own
  // unverified song; verified imports are in catalogue-verified.test.ts.
  it("keeps an import the provider cannot check once per person and finds it again", async () => {
    const { token, uuid } = await signUp();
    const song = track({ isrc: "us-abc-12-34567" });
    const first = await importOne(token, song);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: true, verified: false });
    expect(first.body.song).toMatchObject({
      trackName: song.trackName,
      status: "UNVERIFIED",
      isPublic: false,
      ownerUuid: uuid,
      isrc: "USABC1234567",
      musicProviders: song.musicProviders,
    });
    const again = await importOne(token, song);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, song: { songId: first.body.song.songId } });
    // The matching rule: the same isrc, the same provider id, or names and duration within 5 s.
    for (const variant of [
      track({ isrc: "USABC1234567" }),
      track({ musicProviders: { spotify: song.musicProviders.spotify } }),
      track({
        trackName: song.trackName.toUpperCase(),
        artistName: " importer ",
        duration: 219,
        musicProviders: { apple: "other" },
      }),
    ])
      expect((await importOne(token, variant)).body).toMatchObject({
        created: false,
        song: { songId: first.body.song.songId },
      });
    expect(
      (
        await importOne(
          token,
          track({
            trackName: song.trackName,
            duration: 225,
            musicProviders: { apple: `ap-${tag()}` },
          }),
        )
      ).body.created,
    ).toBe(true);
  });

  it("answers a listed catalogue song the hints match, without changing it", async () => {
    const { token } = await signUp();
    const listed = await seedSong({ ownerUuid: null, musicProviders: { spotify: `sp-${tag()}` } });
    const res = await importOne(
      token,
      track({ trackName: "forged name", musicProviders: listed.musicProviders }),
    );
    expect(res.body).toMatchObject({
      created: false,
      song: { songId: listed.songId, trackName: listed.trackName },
    });
  });

  it("makes one row when the same song is imported 10 times at once", async () => {
    const { token } = await signUp();
    const song = track();
    const results = await Promise.all(Array.from({ length: 10 }, () => importOne(token, song)));
    expect(results.filter((r) => r.status === 201).length).toBe(1);
    expect(new Set(results.map((r) => r.body.song.songId)).size).toBe(1);
    expect(
      (await db(env).select().from(songs).where(eq(songs.trackName, song.trackName)).all()).length,
    ).toBe(1);
  });

  it("answers the catalogue's two import messages word for word", async () => {
    const { token } = await signUp();
    const before = await countRows("songs");
    for (const musicProviders of [
      undefined,
      {},
      { youtube: "yt1", audius: "a1" },
      { spotify: "" },
    ]) {
      const res = await importOne(token, track({ musicProviders }));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(SONG_MSG.importNoProviders);
    }
    const missing = await importOne(
      token,
      track({ musicProviders: { uploadService: crypto.randomUUID() } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(
      "Sorry, this song is not in our catalog and can't be imported",
    );
    const hidden = await seedSong({ ownerUuid: crypto.randomUUID(), isPublic: false });
    expect(
      (await importOne(token, track({ musicProviders: { uploadService: hidden.songId } }))).status,
    ).toBe(404);
    expect(await countRows("songs")).toBe(before + 1);
    const upload = await seedSong();
    const found = await importOne(
      token,
      track({ musicProviders: { uploadService: upload.songId } }),
    );
    expect(found.body).toMatchObject({ created: false, song: { songId: upload.songId } });
  });

  it("refuses bad input, guests and missing tokens without writing", async () => {
    const { token } = await signUp();
    const before = await countRows("songs");
    for (const song of [
      undefined,
      track({ trackName: "" }),
      track({ duration: "200" }),
      track({ duration: -1 }),
      track({ isrc: "US/1" }),
      track({ musicProviders: "spotify" }),
      track({ link: "x".repeat(3000) }),
    ]) {
      expect((await importOne(token, song)).status).toBe(400);
    }
    expect((await importOne(await guestToken(), track())).status).toBe(403);
    expect((await importOne("", track())).status).toBe(401);
    expect(await countRows("songs")).toBe(before);
  });

  it("looks songs up through indexes, not by scanning the catalogue", async () => {
    const song = importSongSchema.parse(
      track({
        isrc: "USABC1234567",
        musicProviders: { spotify: "s", apple: "a", sevenDigital: 7 },
      }),
    );
    const probe = { ...song, trackName: song.trackName!, artistName: song.artistName! };
    const q = new SQLiteAsyncDialect().sqlToQuery(
      sql`explain query plan select 1 from songs where ${matchWhere(probe)}`,
    );
    const plan = (
      (
        await env.DB.prepare(q.sql)
          .bind(...q.params)
          .all()
      ).results as { detail: string }[]
    )
      .map((r) => r.detail)
      .join("\n");
    for (const index of [
      "songs_isrc_idx",
      "songs_spotify_idx",
      "songs_apple_idx",
      "songs_seven_digital_idx",
      "songs_name_key_idx",
    ])
      expect(plan).toContain(index);
    expect(plan).not.toMatch(/SCAN songs|songs_owner_idx/);
    // The catalogue list's genre filter (GET /api/v1/songs) has its index too.
    const list = await env.DB.prepare(
      "explain query plan select id from songs where +status = 'VERIFIED' and +is_public = 1 and lower(genre) = lower(?) order by id desc",
    )
      .bind("rock")
      .all();
    expect(JSON.stringify(list.results)).toContain("songs_genre_lower_idx");
  });
});

describe("/rooms/{slug}/recent-songs", () => {
  const play = (over: Record<string, unknown> = {}) => ({
    playId: `play-${tag()}`,
    song: { songId: crypto.randomUUID(), trackName: "Tune", artistName: "Band" },
    voteCounts: { likes: 3, dislikes: 1, stars: 0 },
    djUuid: crypto.randomUUID(),
    playedAt: Date.now(),
    ...over,
  });

  it("records plays once per playId and lists them newest first, slugs lowercase", async () => {
    const slug = `Room-${tag()}`;
    const first = play({ playedAt: "2026-01-01T10:00:00.000Z" });
    const res = await pl(`/rooms/${slug}/recent-songs`, { body: first, headers: SERVICE });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ...first, roomSlug: slug.toLowerCase() });
    const again = await pl(`/rooms/${slug.toLowerCase()}/recent-songs`, {
      body: { ...first, voteCounts: { likes: 9, dislikes: 0, stars: 0 } },
      headers: SERVICE,
    });
    expect(again.status).toBe(200);
    expect(again.body.voteCounts.likes).toBe(3);
    const second = play({ playedAt: Date.parse("2026-01-01T10:04:00.000Z") });
    expect(
      (await pl(`/rooms/${slug}/recent-songs`, { body: second, token: (await admin()).token }))
        .status,
    ).toBe(201);
    const list = await pl(`/rooms/${slug.toUpperCase()}/recent-songs`);
    expect(list.status).toBe(200);
    expect(list.body.songPlays.map((p: { playId: string }) => p.playId)).toEqual([
      second.playId,
      first.playId,
    ]);
    expect((await pl(`/rooms/${slug}/recent-songs?limit=1`)).body.songPlays.length).toBe(1);
    for (const q of ["limit=51", "limit=0"])
      expect((await pl(`/rooms/${slug}/recent-songs?${q}`)).status).toBe(400);
  });

  it("takes plays from services only and refuses bad input without writing", async () => {
    const before = await countRows("recent_song_plays");
    expect((await pl("/rooms/x/recent-songs", { body: play() })).status).toBe(401);
    expect(
      (await pl("/rooms/x/recent-songs", { body: play(), token: (await signUp()).token })).status,
    ).toBe(403);
    expect(
      (await pl("/rooms/x/recent-songs", { body: play(), headers: { "X-Service-Key": "wrong" } }))
        .status,
    ).toBe(401);
    for (const over of [
      { playId: "" },
      { song: "tune" },
      { djUuid: "dj" },
      { playedAt: "yesterday" },
      { voteCounts: { likes: -1 } },
    ]) {
      expect(
        (await pl("/rooms/x/recent-songs", { body: play(over), headers: SERVICE })).status,
      ).toBe(400);
    }
    expect(await countRows("recent_song_plays")).toBe(before);
  });
});

describe("appending to a crate deleted meanwhile", () => {
  it("writes nothing and does not fail (the playlist import's last step after a delete)", async () => {
    const { appendSongs } = await import("../workers/crates/crate-repo");
    const song = await seedSong({ ownerUuid: null });
    const before = await env.DB.prepare("select count(*) as n from crate_songs").first<{
      n: number;
    }>();
    await expect(
      appendSongs(env, 987654321, [
        {
          crateSongUuid: crypto.randomUUID(),
          songId: (await env.DB.prepare("select id from songs where song_id = ?")
            .bind(song.songId)
            .first<{ id: number }>())!.id,
        },
      ]),
    ).resolves.toBeUndefined();
    const after = await env.DB.prepare("select count(*) as n from crate_songs").first<{
      n: number;
    }>();
    expect(after!.n).toBe(before!.n);
  });
});

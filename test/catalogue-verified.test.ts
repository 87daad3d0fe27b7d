import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spotify } from "../workers/adapters/music/spotify";
import { db } from "../workers/db/client";
import { crateSongs, songs } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { SONG_MSG } from "../workers/songs/messages";
import { newCrate, pl } from "./crate-helpers";
import { countRows, signUp } from "./helpers";
import { json, providerEnv, ps, stubFetch, tokenAnswer, type Handler } from "./music-stubs";

/**
 * Issue 18, "Imports are verified": POST /api/v1/track-import asks the provider and stores
 * what it says; without the provider, the import is the importer's own unverified song.
 * Providers are stubbed at the fetch boundary (test/music-stubs.ts).
 */
afterEach(() => vi.restoreAllMocks());

const tag = () => crypto.randomUUID().replace(/-/g, "").slice(0, 8);
/** Spotify ids are 22 base-62 characters. */
const spotifyId = () => `${tag()}${tag()}${tag()}`.slice(0, 22);
const appleId = () => String(Math.floor(Math.random() * 1e12));

interface Truth {
  id: string;
  name: string;
  artist: string;
  seconds: number;
  isrc?: string;
  album?: string;
  year?: string;
  genre?: string;
}
const spotifyTrack = (t: Truth) => ({
  id: t.id,
  name: t.name,
  duration_ms: t.seconds * 1000,
  explicit: false,
  artists: [{ name: t.artist }],
  album: {
    name: t.album ?? "",
    release_date: t.year,
    images: [{ url: `https://i.scdn.test/${t.id}.jpg`, width: 300 }],
  },
  external_ids: t.isrc ? { isrc: t.isrc } : {},
  external_urls: { spotify: `https://open.spotify.com/track/${t.id}` },
});
const appleSong = (t: Truth) => ({
  id: t.id,
  attributes: {
    name: t.name,
    artistName: t.artist,
    albumName: t.album,
    genreNames: t.genre ? [t.genre, "Music"] : [],
    releaseDate: t.year,
    durationInMillis: t.seconds * 1000,
    isrc: t.isrc,
    url: `https://music.apple.com/us/song/${t.id}`,
    artwork: { url: "https://is1.mzstatic.test/{w}x{h}.jpg" },
  },
});

/** Spotify and Apple stubs answering the given tracks by id (404 for any other). */
function providers(o: { spotify?: Truth[]; apple?: Truth[] }, only?: ("spotify" | "apple")[]) {
  const p = providerEnv();
  const routes: [string, Handler][] = [
    [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp-token")],
    [
      `${p.hosts.spotify}/v1/tracks/`,
      (url) => {
        const t = o.spotify?.find((x) => url.pathname.endsWith(`/${x.id}`));
        return t ? json(spotifyTrack(t)) : json({ error: "not found" }, 404);
      },
    ],
    [
      `${p.hosts.apple}/v1/catalog/`,
      (url) => {
        const t = o.apple?.find((x) => url.pathname.endsWith(`/${x.id}`));
        return t ? json({ data: [appleSong(t)] }) : json({ errors: [] }, 404);
      },
    ],
  ];
  const stub = stubFetch(routes);
  return { stub, env: p.only(...(only ?? ["spotify", "apple"])), hosts: p.hosts };
}

const importOne = (token: string, song: unknown, over?: Partial<Env>) =>
  ps("/api/v1/track-import", { token, body: { song }, env: over });

describe("verified track import", () => {
  it("stores what the provider says, not what the client sends (a forged import)", async () => {
    const { token } = await signUp();
    const truth: Truth = {
      id: spotifyId(),
      name: `Real Song ${tag()}`,
      artist: "Real Artist",
      seconds: 201,
      isrc: `US${tag().toUpperCase()}01`.slice(0, 12),
      album: "Real Album",
      year: "2019-05-03",
    };
    const p = providers({ spotify: [truth] });
    const forged = {
      trackName: "Buy cheap pills",
      artistName: "Spammer",
      duration: 3,
      isrc: "XX0000000000",
      musicProviders: { spotify: truth.id, apple: "123" },
      thumbnails: { spotify: "https://evil.test/x.jpg" },
      links: { spotify: "https://evil.test/phish" },
      genre: "Spam",
    };
    const res = await importOne(token, forged, p.env);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: true, verified: true });
    expect(res.body.song).toMatchObject({
      trackName: truth.name,
      artistName: truth.artist,
      duration: 201,
      isrc: truth.isrc,
      albumName: "Real Album",
      releaseYear: 2019,
      genre: null,
      status: "VERIFIED",
      isPublic: true,
      ownerUuid: null,
      musicProviders: { spotify: truth.id },
      thumbnails: { spotify: `https://i.scdn.test/${truth.id}.jpg` },
      links: { spotify: `https://open.spotify.com/track/${truth.id}` },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/evil|Spam|pills|XX0000000000/);
  });

  it("answers the catalogue's 404 when the provider has no such track, writing nothing", async () => {
    const { token } = await signUp();
    const p = providers({});
    const before = await countRows("songs");
    const res = await importOne(
      token,
      { trackName: "Ghost", artistName: "Nobody", musicProviders: { spotify: spotifyId() } },
      p.env,
    );
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(SONG_MSG.importNotInCatalog);
    // No importable provider id at all: the other message, as before.
    const none = await importOne(token, { trackName: "x", artistName: "y" }, p.env);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(SONG_MSG.importNoProviders);
    expect(await countRows("songs")).toBe(before);
  });

  it("resolves a shared link through its provider", async () => {
    const { token } = await signUp();
    const truth: Truth = { id: spotifyId(), name: `Linked ${tag()}`, artist: "L", seconds: 180 };
    const p = providers({ spotify: [truth] });
    const res = await importOne(token, { link: `open.spotify.com/track/${truth.id}?si=x` }, p.env);
    expect(res.status).toBe(201);
    expect(res.body.song).toMatchObject({ trackName: truth.name, status: "VERIFIED" });
    const bad = await importOne(token, { link: "https://example.com/track/1" }, p.env);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(SONG_MSG.unsupportedLink);
  });

  it("a second import of the same song merges in new provider ids and fills empty fields only", async () => {
    const { token } = await signUp();
    const isrc = `GB${tag().toUpperCase()}99`.slice(0, 12);
    const name = `Merge ${tag()}`;
    const sp: Truth = { id: spotifyId(), name, artist: "Merger", seconds: 240, isrc };
    const ap: Truth = {
      id: appleId(),
      name: `${name} (Remastered)`,
      artist: "Someone Else",
      seconds: 241,
      isrc,
      album: "Apple Album",
      genre: `Genre ${tag()}`,
      year: "2001",
    };
    const p = providers({ spotify: [sp], apple: [ap] });
    const first = await importOne(token, { musicProviders: { spotify: sp.id } }, p.env);
    expect(first.status).toBe(201);
    const second = await importOne(token, { musicProviders: { apple: ap.id } }, p.env);
    expect(second.status).toBe(200);
    expect(second.body.created).toBe(false);
    expect(second.body.song).toMatchObject({
      songId: first.body.song.songId,
      // The first verified answer's names stay; empty fields are filled from the second.
      trackName: name,
      artistName: "Merger",
      albumName: "Apple Album",
      genre: ap.genre,
      releaseYear: 2001,
      musicProviders: { spotify: sp.id, apple: ap.id },
    });
    expect(Object.keys(second.body.song.thumbnails).sort()).toEqual(["apple", "spotify"]);
  });

  it("matches names the Unicode way: ÉLAN and élan are one song", async () => {
    const { token } = await signUp();
    const t = tag();
    const a: Truth = { id: spotifyId(), name: `ÉLAN ${t}`, artist: "NIGHTWİSH Ǆ", seconds: 280 };
    const b: Truth = { id: appleId(), name: `élan ${t}`, artist: "nightwi̇sh ǆ", seconds: 283 };
    const p = providers({ spotify: [a], apple: [b] });
    const first = await importOne(token, { musicProviders: { spotify: a.id } }, p.env);
    const second = await importOne(token, { musicProviders: { apple: b.id } }, p.env);
    expect(first.status).toBe(201);
    expect(second.body).toMatchObject({
      created: false,
      song: { songId: first.body.song.songId },
    });
    // Full-width letters fold too (NFKC).
    const c: Truth = { id: spotifyId(), name: `ÉＬＡＮ ${t}`, artist: "nightwi̇sh ǆ", seconds: 280 };
    const p2 = providers({ spotify: [c] });
    expect(
      (await importOne(token, { musicProviders: { spotify: c.id } }, p2.env)).body,
    ).toMatchObject({ created: false, song: { songId: first.body.song.songId } });
  });

  it("fills genres, artists and albums from what the provider says", async () => {
    const { token } = await signUp();
    const g = `Provider Genre ${tag()}`;
    const ap: Truth = {
      id: appleId(),
      name: `Facet ${tag()}`,
      artist: `Facet Artist ${tag()}`,
      seconds: 200,
      album: `Facet Album ${tag()}`,
      genre: g,
    };
    const p = providers({ apple: [ap] });
    expect((await importOne(token, { musicProviders: { apple: ap.id } }, p.env)).status).toBe(201);
    const genres = await pl(`/api/v1/genres?prefix=${encodeURIComponent(g.slice(0, 20))}`, {
      token,
    });
    expect(genres.body.data.map((x: { name: string }) => x.name)).toContain(g);
    const artists = await pl("/artists?take=100", { token });
    expect(artists.body.total).toBeGreaterThan(0);
    const song = await db(env).select().from(songs).where(eq(songs.trackName, ap.name)).get();
    expect(song?.artistId).toEqual(expect.any(Number));
    expect(song?.albumId).toEqual(expect.any(Number));
  });
});

describe("unverified track import (provider not configured)", () => {
  it("keeps the song as the importer's own: not public, not searchable, not another person's", async () => {
    const me = await signUp();
    const other = await signUp();
    const name = `Unchecked ${tag()}`;
    const song = {
      trackName: name,
      artistName: "Claimed Artist",
      duration: 200,
      musicProviders: { spotify: spotifyId() },
    };
    const res = await importOne(me.token, song);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: true, verified: false });
    expect(res.body.song).toMatchObject({
      trackName: name,
      status: "UNVERIFIED",
      isPublic: false,
      ownerUuid: me.uuid,
    });
    const id = res.body.song.songId;
    expect((await pl(`/api/v1/songs/${id}`, { token: me.token })).status).toBe(200);
    expect((await pl(`/api/v1/songs/${id}`, { token: other.token })).status).toBe(404);
    const search = await ps(`/search?q=${encodeURIComponent(name)}`, { token: me.token });
    expect(search.body.songs).toEqual([]);
    // Importing it again answers the same row; another person gets their own.
    expect((await importOne(me.token, song)).body).toMatchObject({
      created: false,
      song: { songId: id },
    });
    const theirs = await importOne(other.token, song);
    expect(theirs.body.song.songId).not.toBe(id);
    expect(theirs.body.song.ownerUuid).toBe(other.uuid);
    // Without names there is nothing to keep.
    const nameless = await importOne(me.token, { musicProviders: { spotify: spotifyId() } });
    expect(nameless.status).toBe(400);
    expect(nameless.body.message).toBe(SONG_MSG.importNeedsNames);
  });

  it("gives way to the catalogue song once an import can verify it; crates keep the song", async () => {
    const me = await signUp();
    const truth: Truth = { id: spotifyId(), name: `Later ${tag()}`, artist: "Later", seconds: 210 };
    const hint = {
      trackName: "my guess",
      artistName: "guess",
      musicProviders: { spotify: truth.id },
    };
    const mine = await importOne(me.token, hint);
    expect(mine.body.verified).toBe(false);
    const crate = await newCrate(me.token);
    expect(
      (
        await pl(`/crate/${crate.crateUuid}/songs`, {
          token: me.token,
          body: { songId: mine.body.song.songId },
        })
      ).status,
    ).toBeLessThan(300);
    const p = providers({ spotify: [truth] });
    const verified = await importOne(me.token, hint, p.env);
    expect(verified.body).toMatchObject({
      created: true,
      verified: true,
      song: { trackName: truth.name },
    });
    const copy = await db(env)
      .select()
      .from(songs)
      .where(eq(songs.songId, mine.body.song.songId))
      .get();
    expect(copy).toBeUndefined();
    const held = await db(env).select().from(crateSongs).all();
    const row = await db(env)
      .select()
      .from(songs)
      .where(eq(songs.songId, verified.body.song.songId))
      .get();
    expect(held.some((h) => h.songId === row!.id)).toBe(true);
  });
});

describe("provider tokens", () => {
  it("concurrent 401s share one token refresh", async () => {
    const p = providerEnv();
    let issued = 0;
    const stub = stubFetch([
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer(`tok-${++issued}`)],
      [
        `${p.hosts.spotify}/v1/tracks/`,
        async (_url, init) => {
          const auth = new Headers(init?.headers).get("Authorization");
          // The first token is refused (revoked); later ones work.
          if (auth === "Bearer tok-1") return json({ error: "expired" }, 401);
          return json(spotifyTrack({ id: spotifyId(), name: "T", artist: "A", seconds: 100 }));
        },
      ],
    ]);
    const e = { ...env, ...p.only("spotify") } as Env;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => spotify.track(e, spotifyId())),
    );
    expect(results.every((r) => r?.trackName === "T")).toBe(true);
    // One token at first (shared), then exactly one refresh for all six refusals.
    expect(stub.count(`${p.hosts.spotifyAccounts}/api/token`)).toBe(2);
  });
});

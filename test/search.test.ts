import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SONG_MSG } from "../workers/songs/messages";
import { guestToken, signUp, type TestAccount } from "./helpers";
import { addSong, ps, stubFetch } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

const OFF = {
  local: "on",
  sevenDigital: "off",
  soundCloudPublic: "off",
  audius: "off",
  spotify: "off",
  apple: "off",
  youtube: "off",
};

let me: TestAccount;
let other: TestAccount;
let guest: string;
const tag = `zq${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;

beforeAll(async () => {
  me = await signUp();
  other = await signUp();
  guest = await guestToken();
  // One word (`tag`) ties this file's songs together in the FTS index.
  await addSong(`Alpha ${tag}`, "Local Band");
  await addSong(`Beta ${tag}`, "Local Band", { explicit: true });
  await addSong(`Mine ${tag}`, "Me", { isPublic: false, ownerUuid: me.uuid });
  await addSong(`Theirs ${tag}`, "Them", { isPublic: false, ownerUuid: other.uuid });
  await addSong(`Pending ${tag}`, "Local Band", { status: "PENDING_UPLOAD" });
});

describe("GET /search with no provider configured", () => {
  it("answers from the local catalogue alone and says every provider is off, without calling out", async () => {
    const { calls } = stubFetch([]);
    const r = await ps(`/search?q=${tag}`, { token: me.token });
    expect(r.status).toBe(200);
    expect(r.body.providers).toEqual(OFF);
    expect(r.body.offset).toBe(0);
    expect(r.body.limit).toBe(20);
    // VERIFIED and (public or mine); another's private song and an unverified one are hidden.
    expect(r.body.songs.map((s: { trackName: string }) => s.trackName)).toEqual([
      `Alpha ${tag}`,
      `Beta ${tag}`,
      `Mine ${tag}`,
    ]);
    expect(r.body.songs[0]).toMatchObject({
      songId: expect.any(String),
      artistName: "Local Band",
      status: "VERIFIED",
    });
    expect(calls).toHaveLength(0);
  });

  it("lets guests search (any valid token), and a guest sees only public songs", async () => {
    const r = await ps(`/search?q=${tag}`, { token: guest });
    expect(r.status).toBe(200);
    expect(r.body.songs.map((s: { trackName: string }) => s.trackName)).toEqual([
      `Alpha ${tag}`,
      `Beta ${tag}`,
    ]);
  });

  it("explicit=false leaves explicit songs out", async () => {
    const r = await ps(`/search?q=${tag}&explicit=false`, { token: me.token });
    expect(r.body.songs.map((s: { trackName: string }) => s.trackName)).toEqual([
      `Alpha ${tag}`,
      `Mine ${tag}`,
    ]);
  });

  it("v2 answers the same songs plus totals per source and the next offset", async () => {
    const v1 = await ps(`/search?q=${tag}&limit=2`, { token: me.token });
    const v2 = await ps(`/search/v2?q=${tag}&limit=2`, { token: me.token });
    expect(v2.status).toBe(200);
    expect(v2.body.songs).toEqual(v1.body.songs);
    expect(v2.body).toMatchObject({
      providers: OFF,
      offset: 0,
      limit: 2,
      total: { local: 3 },
      next: 2,
    });
    const last = await ps(`/search/v2?q=${tag}&limit=2&offset=2`, { token: me.token });
    expect(last.body.songs.map((s: { trackName: string }) => s.trackName)).toEqual([`Mine ${tag}`]);
    expect(last.body.next).toBeNull();
  });

  it("providers=spotify leaves the catalogue out (and Spotify, unconfigured, stays off)", async () => {
    const r = await ps(`/search/v2?q=${tag}&providers=spotify`, { token: me.token });
    expect(r.status).toBe(200);
    expect(r.body.songs).toEqual([]);
    expect(r.body.providers.local).toBe("off");
    expect(r.body.total).toEqual({});
  });

  it("a query with no searchable words finds nothing locally instead of failing", async () => {
    const r = await ps(`/search?q=${encodeURIComponent("!!! ***")}`, { token: me.token });
    expect(r.status).toBe(200);
    expect(r.body.songs).toEqual([]);
  });
});

describe("search input and auth", () => {
  it("401 without a token, on both versions", async () => {
    for (const path of [`/search?q=${tag}`, `/search/v2?q=${tag}`]) {
      const r = await ps(path);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ statusCode: 401, message: "Unauthorized", error: "Unauthorized" });
    }
  });

  it("an empty, blank or missing query is 400 with the catalogue's exact message", async () => {
    for (const path of ["/search?q=", "/search?q=%20%20", "/search", "/search/v2?q=&limit=0"]) {
      const r = await ps(path, { token: me.token });
      expect(r.status, path).toBe(400);
      expect(r.body).toEqual({
        statusCode: 400,
        message: SONG_MSG.emptySearch,
        error: "Bad Request",
      });
    }
  });

  it("bad paging, country, explicit flag or provider list is 400 with the reason", async () => {
    const cases: [string, RegExp][] = [
      ["limit=0", /limit/],
      ["limit=51", /limit/],
      ["offset=-1", /offset/],
      ["limit=abc", /limit/],
      ["country=USA", /country must be a 2-letter country code/],
      ["explicit=yes", /explicit must be true or false/],
      ["providers=napster", /providers must be a comma list of/],
      ["providers=%2C", /providers must be a comma list of/],
    ];
    for (const [qs, why] of cases) {
      const r = await ps(`/search?q=x&${qs}`, { token: me.token });
      expect(r.status, qs).toBe(400);
      expect(String(r.body.message), qs).toMatch(why);
    }
  });

  it("country is case-insensitive and limit and offset take their bounds", async () => {
    const r = await ps(`/search/v2?q=${tag}&country=gb&limit=50&offset=0`, { token: me.token });
    expect(r.status).toBe(200);
    expect(r.body.limit).toBe(50);
  });
});

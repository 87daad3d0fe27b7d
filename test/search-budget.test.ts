import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RULES } from "../workers/lib/abuse-limits";
import { signUp, type TestAccount } from "./helpers";
import { fake, json, providerEnv, ps, stubFetch, tokenAnswer } from "./music-stubs";

/**
 * Issue 18: search answers within a total budget (a hanging provider is dropped and
 * marked "late"), and YouTube's 100-unit search.list is cached per normalised query and
 * budgeted per day.
 */
afterEach(() => vi.restoreAllMocks());

let me: TestAccount;
beforeAll(async () => {
  me = await signUp();
});
const uniq = () => `sb${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;

describe("search budget", () => {
  it("answers without a provider that hangs, marks it late and the answer partial", async () => {
    const q = uniq();
    const p = providerEnv();
    stubFetch([
      [
        `${p.hosts.seven}/track/search`,
        () =>
          json({
            status: "ok",
            searchResults: {
              totalItems: 1,
              searchResult: [{ type: "track", track: fake.seven(0) }],
            },
          }),
      ],
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp")],
      // Spotify never answers (its own 5 s timeout is far off).
      [`${p.hosts.spotify}/v1/search`, () => new Promise<Response>(() => {})],
    ]);
    const started = Date.now();
    const r = await ps(`/search/v2?q=${q}`, {
      token: me.token,
      env: { ...p.only("seven", "spotify"), SEARCH_BUDGET_MS: "300" },
    });
    const took = Date.now() - started;
    expect(r.status).toBe(200);
    expect(took).toBeLessThan(2000);
    expect(r.body.providers).toMatchObject({ sevenDigital: "on", spotify: "late" });
    expect(r.body.partial).toBe(true);
    expect(r.body.songs.map((s: { trackName: string }) => s.trackName)).toEqual(["Seven 0"]);
    // All on time: not partial.
    const p2 = providerEnv();
    stubFetch([
      [`${p2.hosts.seven}/track/search`, () => json({ status: "ok", searchResults: {} })],
    ]);
    const ok = await ps(`/search?q=${q}`, { token: me.token, env: p2.only("seven") });
    expect(ok.body.partial).toBe(false);
  });
});

describe("YouTube search cache", () => {
  const routes = (p: ReturnType<typeof providerEnv>) =>
    [
      [
        `${p.hosts.youtube}/search`,
        () => json({ items: [{ id: { videoId: "vidAAAAAAA1" } }], pageInfo: { totalResults: 1 } }),
      ],
      [
        `${p.hosts.youtube}/videos`,
        () =>
          json({
            items: [
              {
                id: "vidAAAAAAA1",
                snippet: { title: "Tube Artist - Tube Song", channelTitle: "Tube" },
                contentDetails: { duration: "PT3M" },
              },
            ],
          }),
      ],
    ] as Parameters<typeof stubFetch>[0];

  it("asks search.list once for the same query however it is typed", async () => {
    const q = uniq();
    const p = providerEnv();
    const stub = stubFetch(routes(p));
    for (const typed of [q, `  ${q.toUpperCase()}  `, q.replace("sb", "ＳＢ")]) {
      const r = await ps(`/search?q=${encodeURIComponent(typed)}`, {
        token: me.token,
        env: p.only("youtube"),
      });
      expect(r.body.providers.youtube).toBe("on");
      expect(r.body.songs.map((s: { trackName: string }) => s.trackName)).toContain("Tube Song");
    }
    expect(stub.count(`${p.hosts.youtube}/search`)).toBe(1);
    // Another query is another call.
    await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("youtube") });
    expect(stub.count(`${p.hosts.youtube}/search`)).toBe(2);
  });

  it("stops asking YouTube once the day's budget for its key is spent", async () => {
    const p = providerEnv();
    const stub = stubFetch(routes(p));
    const limit = RULES.youtubeSearchPerDay.limit;
    for (let i = 0; i < limit; i++)
      await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("youtube") });
    expect(stub.count(`${p.hosts.youtube}/search`)).toBe(limit);
    const over = await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("youtube") });
    expect(over.status).toBe(200);
    expect(over.body.providers.youtube).toBe("off");
    expect(stub.count(`${p.hosts.youtube}/search`)).toBe(limit);
  }, 60_000);
});

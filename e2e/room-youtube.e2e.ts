import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// A song only YouTube has, played in a room while offline (issue 4, "YouTube through its
// iframe player when online"): the iframe API is asked for only once such a song plays,
// its failure shows a clear state, and the room keeps working (votes, chat).
const SAM = "dj.sam@hangout.local";

const getBrowser = useBrowser();
const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);

describe("rooms: YouTube playback offline", () => {
  it("a YouTube-only song shows 'unavailable offline' and the room goes on", async () => {
    const token = await tokenFor(SAM);
    // A catalogue song with a YouTube id and no upload (track import keeps the extra provider id).
    const tag = Date.now().toString(36);
    const { song: imported } = await api<{ song: { songId: string } }>(
      "/api/playlist-service/api/v1/track-import",
      {
        method: "POST",
        token,
        body: JSON.stringify({
          song: {
            trackName: `Tube Tune ${tag}`,
            artistName: "The Offline Band",
            duration: 240,
            musicProviders: { spotify: `yt${tag}`, youtube: "dQw4w9WgXcQ" },
          },
        }),
      },
    );
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token });
    await api("/api/playlist-service/crate/queue/songs", {
      method: "POST",
      token,
      body: JSON.stringify({ songId: imported.songId }),
    });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token,
      body: JSON.stringify({
        name: `YouTube ${tag}`,
        design: "YACHT",
        description: "Videos when online.",
      }),
    });

    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    const youtube: string[] = [];
    const sam = await logIn(ctx, SAM, `/rooms/${room.slug}`);
    sam.on("pageerror", (e) => errors.push(String(e)));
    sam.on("request", (r) => r.url().includes("youtube.com") && youtube.push(r.url()));
    await expect.poll(() => statusOf(sam), { timeout: 15_000 }).toBe("open");
    // Nothing YouTube is loaded until a YouTube song plays.
    expect(youtube).toEqual([]);

    await sam.getByTestId("take-seat").click();
    await expect
      .poll(() => sam.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBe(`Tube Tune ${tag}`);
    await expect
      .poll(() => sam.getByTestId("youtube-player").getAttribute("data-status"), {
        timeout: 20_000,
      })
      .toBe("unavailable");
    expect(youtube.some((u) => u.startsWith("https://www.youtube.com/iframe_api"))).toBe(true);
    await expect(sam.getByTestId("youtube-player").textContent()).resolves.toContain(
      "YouTube playback unavailable offline",
    );
    // The shared audio player was not handed the song (it has no stream to play).
    await expect(sam.getByTestId("player-error").count()).resolves.toBe(0);

    // The room still works: a vote counts and chat goes through.
    await sam.getByTestId("vote-star").click();
    await expect
      .poll(() => sam.getByTestId("vote-star-count").textContent(), { timeout: 10_000 })
      .toBe("1");
    await sam
      .getByTestId("chat-panel")
      .getByTestId("chat-input")
      .fill("No video here, still dancing");
    await sam.getByTestId("chat-panel").getByTestId("chat-input").press("Enter");
    await expect
      .poll(
        () =>
          sam
            .getByTestId("chat-panel")
            .getByTestId("chat-line")
            .filter({ hasText: "still dancing" })
            .count(),
        { timeout: 10_000 },
      )
      .toBe(1);
    await expect(statusOf(sam)).resolves.toBe("open");
    await shot(sam, "youtube-01-offline-1440");
    await sam.setViewportSize({ width: 390, height: 844 });
    await shot(sam, "youtube-02-offline-390");

    await sam.getByTestId("leave-seat").click();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("online, the iframe player plays the song and the play is tracked with the room and provider youtube", async () => {
    const token = await tokenFor(SAM);
    const tag = Date.now().toString(36);
    const { song: imported } = await api<{ song: { songId: string } }>(
      "/api/playlist-service/api/v1/track-import",
      {
        method: "POST",
        token,
        body: JSON.stringify({
          song: {
            trackName: `Tube Live ${tag}`,
            artistName: "The Online Band",
            duration: 240,
            musicProviders: { spotify: `yl${tag}`, youtube: "M7lc1UVf-VE" },
          },
        }),
      },
    );
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token });
    await api("/api/playlist-service/crate/queue/songs", {
      method: "POST",
      token,
      body: JSON.stringify({ songId: imported.songId }),
    });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token,
      body: JSON.stringify({
        name: `YouTube live ${tag}`,
        design: "CLUB",
        description: "Videos online.",
      }),
    });

    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    // No network here: a stand-in for YouTube's iframe API that plays at once, as the real one
    // does once loaded (the page uses window.YT when it is already there).
    await ctx.addInitScript(() => {
      class Player {
        t0 = Date.now();
        state = -1;
        constructor(
          _el: HTMLElement,
          opts: {
            events: {
              onReady(e: { target: Player }): void;
              onStateChange(e: { data: number }): void;
            };
          },
        ) {
          setTimeout(() => opts.events.onReady({ target: this }), 50);
          this.onState = opts.events.onStateChange;
          (window as unknown as { __ytPlayer: Player }).__ytPlayer = this;
        }
        onState: (e: { data: number }) => void;
        seekTo() {}
        playVideo() {
          this.state = 1;
          setTimeout(() => this.onState({ data: 1 }), 50);
        }
        pauseVideo() {}
        getCurrentTime() {
          return (Date.now() - this.t0) / 1000;
        }
        getPlayerState() {
          return this.state;
        }
        getVolume() {
          return 80;
        }
        isMuted() {
          return false;
        }
        destroy() {}
      }
      (window as unknown as { YT: unknown }).YT = { Player, loaded: 1 };
    });
    // Play events leave when a play ends (seed 001: the record, then the total), so the video
    // is paused (as YouTube reports a pause) after a moment of playing.
    const records: { topic: string; kinesisDataRecord: Record<string, unknown> }[] = [];
    ctx.on("request", (r) => {
      if (r.url().includes("/api/audit-service/kinesis") && r.method() === "POST")
        records.push(JSON.parse(r.postData() ?? "{}"));
    });
    const sam = await logIn(ctx, SAM, `/rooms/${room.slug}`);
    await expect.poll(() => statusOf(sam), { timeout: 15_000 }).toBe("open");
    await sam.getByTestId("take-seat").click();
    await expect
      .poll(() => sam.getByTestId("youtube-player").getAttribute("data-status"), {
        timeout: 20_000,
      })
      .toBe("playing");
    await sam.waitForTimeout(1500);
    await sam.evaluate(() =>
      (
        window as unknown as { __ytPlayer: { onState(e: { data: number }): void } }
      ).__ytPlayer.onState({ data: 2 }),
    );
    const mine = () =>
      records.find(
        (r) =>
          r.topic === "play-record" &&
          (r.kinesisDataRecord.songInfo as { trackName?: string })?.trackName ===
            `Tube Live ${tag}`,
      );
    await expect.poll(() => mine(), { timeout: 10_000 }).toBeTruthy();
    const record = mine()!.kinesisDataRecord;
    expect(record).toMatchObject({
      roomSlug: room.slug.toLowerCase(),
      userProvider: "youtube",
      volumeStart: 0.8,
    });
    expect(record.playId).toEqual(expect.any(String));
    expect(record.djUuid).toEqual(expect.any(String));
    expect(
      records.some((r) => r.topic === "play-total" && r.kinesisDataRecord.playId === record.playId),
    ).toBe(true);
    await ctx.close();
  });
});

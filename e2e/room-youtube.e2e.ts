import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// A song only YouTube has, played in a room while offline (issue 4, "YouTube through its
// iframe player when online"): the iframe API is asked for only once such a song plays,
// its failure shows a clear state, and the room keeps working (votes, chat).
const SAM = "dj.sam@hangout.local";

const getBrowser = useBrowser();
const statusOf = (page: Page) => page.getByTestId("room").getAttribute("data-status", { timeout: 2000 }).catch(() => null);

describe("rooms: YouTube playback offline", () => {
  it("a YouTube-only song shows 'unavailable offline' and the room goes on", async () => {
    const token = await tokenFor(SAM);
    // A catalogue song with a YouTube id and no upload (track import keeps the extra provider id).
    const tag = Date.now().toString(36);
    const { song: imported } = await api<{ song: { songId: string } }>("/api/playlist-service/api/v1/track-import", {
      method: "POST",
      token,
      body: JSON.stringify({ song: { trackName: `Tube Tune ${tag}`, artistName: "The Offline Band", duration: 240, musicProviders: { spotify: `yt${tag}`, youtube: "dQw4w9WgXcQ" } } }),
    });
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token });
    await api("/api/playlist-service/crate/queue/songs", { method: "POST", token, body: JSON.stringify({ songId: imported.songId }) });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token,
      body: JSON.stringify({ name: `YouTube ${tag}`, design: "YACHT", description: "Videos when online." }),
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
    await expect.poll(() => sam.getByTestId("np-track").textContent(), { timeout: 15_000 }).toBe(`Tube Tune ${tag}`);
    await expect.poll(() => sam.getByTestId("youtube-player").getAttribute("data-status"), { timeout: 20_000 }).toBe("unavailable");
    expect(youtube.some((u) => u.startsWith("https://www.youtube.com/iframe_api"))).toBe(true);
    await expect(sam.getByTestId("youtube-player").textContent()).resolves.toContain("YouTube playback unavailable offline");
    // The shared audio player was not handed the song (it has no stream to play).
    await expect(sam.getByTestId("player-error").count()).resolves.toBe(0);

    // The room still works: a vote counts and chat goes through.
    await sam.getByTestId("vote-star").click();
    await expect.poll(() => sam.getByTestId("vote-star-count").textContent(), { timeout: 10_000 }).toBe("1");
    await sam.getByTestId("chat-panel").getByTestId("chat-input").fill("No video here, still dancing");
    await sam.getByTestId("chat-panel").getByTestId("chat-input").press("Enter");
    await expect.poll(() => sam.getByTestId("chat-panel").getByTestId("chat-line").filter({ hasText: "still dancing" }).count(), { timeout: 10_000 }).toBe(1);
    await expect(statusOf(sam)).resolves.toBe("open");
    await shot(sam, "youtube-01-offline-1440");
    await sam.setViewportSize({ width: 390, height: 844 });
    await shot(sam, "youtube-02-offline-390");

    await sam.getByTestId("leave-seat").click();
    expect(errors).toEqual([]);
    await ctx.close();
  });
});

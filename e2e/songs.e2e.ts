import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, shot, useBrowser } from "./browser";

// The songs journey in Debian Chromium: search the demo catalogue, queue three songs,
// reorder the queue by dragging, upload an MP3, wait for it to be verified and play it.
const base = () => inject("baseURL");
const EMAIL = "dj.sam@hangout.local";
const PASSWORD = "user-password";

interface Song {
  songId: string;
  trackName: string;
  artistName: string;
  status: string;
}

const getBrowser = useBrowser();

async function logIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base()}/login?redirectTo=${encodeURIComponent("/search")}`);
  await page.fill('input[name="email"]', EMAIL);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([
    page.waitForURL(/\/search/),
    page.locator('main form button[type="submit"]').click(),
  ]);
  return page;
}

/**
 * An MP3 built here: `seconds` of MPEG-1 Layer III frames (header FF FB 90 64: 128 kbps,
 * 44.1 kHz, no padding, so 417 bytes and 1152 samples each), nothing before the first frame.
 */
function mp3(seconds: number): Buffer {
  const FRAME = 417;
  const frames = Math.ceil((seconds * 44_100) / 1152);
  const buf = Buffer.alloc(frames * FRAME);
  for (let i = 0; i < frames; i++) buf.writeUInt32BE(0xfffb9064, i * FRAME);
  return buf;
}

const titles = (page: Page) =>
  page.getByTestId("crate-song").getByTestId("song-track").allTextContents();

describe("songs: search, queue, reorder, upload and play", () => {
  it("queues three demo songs, drags the third to the top, uploads an MP3 and plays it", async () => {
    // What the catalogue holds: the admin's public demo songs.
    const demo = (
      await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")
    ).data.filter((s) => s.status === "VERIFIED");
    expect(demo.length, "public demo songs in the catalogue").toBeGreaterThanOrEqual(3);
    // Songs whose first title word finds them (the word search may find others too).
    const picks = demo.slice(0, 3);

    // A clean queue for dj.sam, so the order checked below is only this test's.
    const { token } = await api<{ token: string }>("/api/user-service/auth/login", {
      method: "POST",
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token });

    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await shot(page, "songs-01-search-empty-1440");

    // Search each by a word of its title (typed: the box searches 300 ms after the last key)
    // and add it to the queue with one click; a toast confirms.
    for (const [i, song] of picks.entries()) {
      const word = song.trackName.split(/\s+/)[0];
      const box = page.getByTestId("search-input");
      await box.fill("");
      await box.pressSequentially(word, { delay: 40 });
      await page.waitForURL((u) => u.searchParams.get("q") === word);
      const row = page
        .getByTestId("search-result")
        .filter({ has: page.getByTestId("song-track").getByText(song.trackName, { exact: true }) });
      await row.first().waitFor();
      if (i === 0) {
        // The URL is shareable: it carries the words.
        expect(new URL(page.url()).searchParams.get("q")).toBe(word);
        await shot(page, "songs-02-search-results-1440");
      }
      await row.first().getByTestId("add-to-queue").click();
      await page.getByTestId("toast-success").filter({ hasText: song.trackName }).first().waitFor();
    }
    await shot(page, "songs-03-added-to-queue-1440");

    // A search URL loads with its results server-rendered.
    const ssr = await (
      await context.request.get(
        `${base()}/search?q=${encodeURIComponent(picks[0].trackName.split(/\s+/)[0])}`,
      )
    ).text();
    expect(ssr).toContain(picks[0].trackName);

    // The queue holds the three in order; drag the third to the top.
    await page.getByTestId("nav-queue").click();
    await page.waitForURL(/\/queue$/);
    await page.getByTestId("crate-song").nth(2).waitFor();
    expect(await titles(page)).toEqual(picks.map((s) => s.trackName));
    await shot(page, "songs-04-queue-1440");

    const handle = page.getByTestId("crate-song").nth(2).getByTestId("drag-handle");
    const first = page.getByTestId("crate-song").first();
    const from = (await handle.boundingBox())!;
    const to = (await first.boundingBox())!;
    const moved = page.waitForResponse(
      (r) => r.url().includes("/position") && r.request().method() === "PUT",
    );
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 8, { steps: 3 });
    await page.mouse.move(from.x + from.width / 2, to.y + 4, { steps: 20 });
    await page.mouse.up();
    expect((await moved).status()).toBe(200);
    const reordered = [picks[2], picks[0], picks[1]].map((s) => s.trackName);
    expect(await titles(page)).toEqual(reordered);
    await shot(page, "songs-05-queue-reordered-1440");

    // The new order is the server's: it survives a reload.
    await page.reload();
    await page.getByTestId("crate-song").nth(2).waitFor();
    expect(await titles(page)).toEqual(reordered);

    // Upload ~10 s of MP3 with a track and artist name; the page shows the status until VERIFIED.
    await page.getByTestId("nav-upload").click();
    await page.waitForURL(/\/upload$/);
    const track = `E2E Tone ${Date.now().toString(36)}`;
    await page
      .getByTestId("song-file")
      .setInputFiles({ name: "e2e-tone.mp3", mimeType: "audio/mpeg", buffer: mp3(10) });
    await page.getByTestId("chosen-file").waitFor();
    await page.getByLabel("Track name").fill(track);
    await page.getByLabel("Artist name").fill("The Test Rig");
    await shot(page, "songs-06-upload-form-1440");
    await page.getByTestId("upload-submit").click();
    const status = page.getByTestId("upload-status");
    await status.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => status.getAttribute("data-status"), { timeout: 30_000, interval: 500 })
      .toBe("VERIFIED");
    await expect(
      page.getByTestId("my-upload").filter({ hasText: track }).first().getAttribute("data-status"),
    ).resolves.toBe("VERIFIED");
    await shot(page, "songs-07-upload-verified-1440");

    // Play it: the player bar loads the HLS (AES-128 MP3 segments) and the audio advances.
    await status.getByTestId("play-song").click();
    const player = page.getByTestId("player");
    await expect
      .poll(() => player.getAttribute("data-state"), { timeout: 20_000, interval: 250 })
      .toBe("playing");
    await expect
      .poll(
        () => page.getByTestId("player-audio").evaluate((a: HTMLAudioElement) => a.currentTime),
        { timeout: 20_000, interval: 250 },
      )
      .toBeGreaterThan(1);
    await expect(page.getByTestId("player-track").textContent()).resolves.toBe(track);
    await shot(page, "songs-08-playing-1440");

    // Pause from the bar.
    await page.getByTestId("player-toggle").click();
    await expect.poll(() => player.getAttribute("data-state")).toBe("paused");

    expect(errors).toEqual([]);
    await context.close();
  });

  it("looks right on a phone: search, queue, crates and upload at 390 px, in Spanish too", async () => {
    const context = await getBrowser().newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await logIn(context);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const demo = (await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")).data;
    const word = demo[0].trackName.split(/\s+/)[0];

    await page.goto(`${base()}/search?q=${encodeURIComponent(word)}`);
    await page.getByTestId("search-result").first().waitFor();
    await shot(page, "songs-11-search-390");

    // The crate menu opens, lists "New crate", which asks for the new crate's name (issue 20).
    await page.getByTestId("search-result").first().getByTestId("add-to-crate").click();
    await page.getByRole("menuitem", { name: "New crate" }).waitFor();
    await shot(page, "songs-12-crate-menu-390");
    await page.getByRole("menuitem", { name: "New crate" }).click();
    const crateName = `Road trip ${Date.now().toString(36)}`;
    await page.getByTestId("new-crate-inline-name").fill(crateName);
    await page.getByTestId("new-crate-inline-name").press("Enter");
    await page.getByTestId("toast-success").filter({ hasText: crateName }).first().waitFor();

    await page.goto(`${base()}/crates`);
    await page.getByTestId("crate-row").first().waitFor();
    await shot(page, "songs-13-crates-390");

    await page.goto(`${base()}/queue`);
    await page.getByTestId("crate-song").first().waitFor();
    await shot(page, "songs-14-queue-390");

    await page.goto(`${base()}/upload?lang=es`);
    await page.getByTestId("dropzone").waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("es");
    await shot(page, "songs-15-upload-es-390");
    await page.goto(`${base()}/search?lang=en`);

    expect(errors).toEqual([]);
    await context.close();
  });
});

import { describe, expect, inject, it } from "vitest";
import { logIn, madeAccount, shot, useBrowser } from "./browser";

// Issue 18 in Debian Chromium: a WAV uploaded on the upload page is converted by the local
// transcoder (scripts/transcoder.mjs running Debian's ffmpeg, started by the e2e setup as
// `npm run dev` starts it), becomes VERIFIED and plays; its genre, new to the catalogue,
// is then suggested by the upload form.
const getBrowser = useBrowser();

/** `seconds` of a 440 Hz sine as 16-bit mono PCM WAV at 22,050 Hz. */
function sineWav(seconds: number): Buffer {
  const rate = 22_050;
  const n = seconds * rate;
  const buf = Buffer.alloc(44 + n * 2);
  buf.write("RIFF", 0, "ascii");
  buf.writeUInt32LE(36 + n * 2, 4);
  buf.write("WAVEfmt ", 8, "ascii");
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36, "ascii");
  buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++)
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  return buf;
}

describe("upload formats: a WAV becomes playable through the local transcoder", () => {
  it("uploads a WAV, waits while it is converted, plays it, and suggests its genre", async () => {
    const who = await madeAccount("Wave Maker");
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, who.email, "/upload", who.password);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    const tag = Date.now().toString(36);
    const track = `Sine Wave ${tag}`;
    const genre = `Sinusoidal ${tag}`;
    await page
      .getByTestId("song-file")
      .setInputFiles({ name: "sine.wav", mimeType: "audio/wav", buffer: sineWav(8) });
    await page.getByTestId("chosen-file").waitFor();
    await page.getByLabel("Track name").fill(track);
    await page.getByLabel("Artist name").fill("Wave Maker");
    await page.getByLabel("Genre (optional)").fill(genre);
    await page.getByTestId("is-public").check({ force: true });
    await page.getByTestId("upload-submit").click();

    // Accepted and waiting for its MP3, then VERIFIED once the transcoder calls back (the
    // page checks every 5 s).
    const status = page.getByTestId("upload-status");
    await status.waitFor({ timeout: 30_000 });
    expect(["VERIFICATION_POSTPONED", "VERIFIED"]).toContain(
      await status.getAttribute("data-status"),
    );
    await shot(page, "upload-formats-01-wav-converting-1440");
    await expect
      .poll(() => status.getAttribute("data-status"), { timeout: 60_000, interval: 500 })
      .toBe("VERIFIED");
    await expect(status.getByTestId("upload-status-title").textContent()).resolves.toBe(
      "Verified, ready to play",
    );
    await shot(page, "upload-formats-02-wav-verified-1440");

    // It plays: the player loads its HLS (segments of the MP3 rendition) and time advances.
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
    await page.getByTestId("player-toggle").click();

    // Its genre is in the catalogue now: the form suggests it for what one types.
    await page.getByTestId("upload-another").click();
    const field = page.getByLabel("Genre (optional)");
    await field.pressSequentially("Sinusoidal", { delay: 30 });
    const option = page.locator(`datalist option[value="${genre}"]`);
    await expect.poll(() => option.count(), { timeout: 10_000, interval: 250 }).toBe(1);
    await shot(page, "upload-formats-03-genre-suggested-1440");

    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a failed upload as failed, without polling, and deletes it", async () => {
    const who = await madeAccount("Broken Files");
    // An "MP3" with no audio frames: stored, then VERIFICATION_ERROR with its reason.
    const form = new FormData();
    form.append("trackName", "Not Audio");
    form.append("artistName", "Broken Files");
    form.append(
      "file",
      new Blob([
        Buffer.concat([Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00"), Buffer.alloc(4000, 0x41)]),
      ]),
      "junk.mp3",
    );
    const res = await fetch(`${inject("baseURL")}/api/upload-service/upload/song`, {
      method: "POST",
      headers: { Authorization: `Bearer ${who.token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: string }).status).toBe("VERIFICATION_ERROR");

    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, who.email, "/upload", who.password);
    const row = page.getByTestId("my-upload").filter({ hasText: "Not Audio" });
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("VERIFICATION_ERROR");
    await shot(page, "upload-formats-04-failed-upload-1440");
    await row.getByTestId("upload-delete").click();
    await expect.poll(() => row.count(), { timeout: 10_000, interval: 250 }).toBe(0);
    const gone = await fetch(`${inject("baseURL")}/api/upload-service/songs?limit=50&offset=0`, {
      headers: { Authorization: `Bearer ${who.token}` },
    });
    expect(((await gone.json()) as { data: unknown[] }).data).toEqual([]);
    await context.close();
  });

  it("says an upload is taking too long once past the bound, stops checking, and offers check again and delete", async () => {
    const who = await madeAccount("Late Waves");
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, who.email, "/upload", who.password);
    // The browser's clock two hours ahead: a song that just started waiting looks stalled
    // to the page (the service's bound is an hour; the sweeper is tested in workerd).
    await page.clock.install({ time: Date.now() + 2 * 3600_000 });
    await page.reload();
    let polls = 0;
    page.on("request", (r) => {
      if (/\/api\/upload-service\/songs\/[0-9a-f-]{36}$/.test(r.url())) polls++;
    });
    await page
      .getByTestId("song-file")
      .setInputFiles({ name: "late.wav", mimeType: "audio/wav", buffer: sineWav(2) });
    await page.getByTestId("chosen-file").waitFor();
    await page.getByLabel("Track name").fill("Late Wave");
    await page.getByLabel("Artist name").fill("Late Waves");
    await page.getByTestId("upload-submit").click();
    const status = page.getByTestId("upload-status");
    await status.waitFor({ timeout: 30_000 });
    await expect(status.getAttribute("data-stalled")).resolves.toBe("true");
    await expect(status.getByTestId("upload-status-title").textContent()).resolves.toBe(
      "This is taking too long",
    );
    await shot(page, "upload-formats-05-stalled-1440");
    // No polling: 7 s (more than one 5 s period) without a single status request.
    await page.waitForTimeout(7_000);
    expect(polls).toBe(0);
    // "Check again" asks once: the transcoder finished meanwhile, so it is VERIFIED now.
    await status.getByTestId("upload-check-again").click();
    await expect.poll(() => polls, { timeout: 10_000, interval: 250 }).toBe(1);
    await expect
      .poll(() => status.getAttribute("data-status"), { timeout: 10_000 })
      .toBe("VERIFIED");
    expect(await status.getAttribute("data-stalled")).toBeNull();

    // In Spanish, and "Borrar" deletes the stalled song.
    await page.goto(`${inject("baseURL")}/upload?lang=es`);
    await page
      .getByTestId("song-file")
      .setInputFiles({ name: "tarde.wav", mimeType: "audio/wav", buffer: sineWav(2) });
    await page.getByTestId("chosen-file").waitFor();
    await page.getByLabel("Nombre de la canción").fill("Onda Tardía");
    await page.getByLabel("Nombre del artista").fill("Late Waves");
    await page.getByTestId("upload-submit").click();
    await status.waitFor({ timeout: 30_000 });
    await expect(status.getByTestId("upload-status-title").textContent()).resolves.toBe(
      "Esto está tardando demasiado",
    );
    await shot(page, "upload-formats-06-stalled-es-1440");
    await status.getByTestId("upload-delete").click();
    await page.getByTestId("dropzone").waitFor();
    const mine = await fetch(`${inject("baseURL")}/api/upload-service/songs?limit=50&offset=0`, {
      headers: { Authorization: `Bearer ${who.token}` },
    });
    const names = ((await mine.json()) as { data: { trackName: string }[] }).data.map(
      (s) => s.trackName,
    );
    expect(names).toEqual(["Late Wave"]);
    await page.goto(`${inject("baseURL")}/upload?lang=en`);
    await context.close();
  });
});

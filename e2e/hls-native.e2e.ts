import type { Page, Request } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { logIn, madeAccount, shot, useBrowser } from "./browser";

// Issue 18: an upload plays in Debian Chromium through both of the player's HLS paths
// (app/components/songs/Player.tsx). hls.js is what Chromium takes by default (it has
// MediaSource) and plays the RFC 8216 packed audio; the native path is what Safari and iOS
// take: the <audio> element is handed a blob: copy of the playlist and fetches the (signed,
// AES-128) segments itself, as MPEG-TS, the one container Chromium's built-in HLS demuxes.
// Taking MediaSource away forces that path here. Each path must play past the first segment
// boundary, where the segments' timestamps matter.
const getBrowser = useBrowser();
const base = () => inject("baseURL");

/** ~14 s of MPEG-1 Layer III frames (128 kbps, 44.1 kHz, 417 bytes each): three segments. */
function mp3(seconds: number): Buffer {
  const frames = Math.ceil((seconds * 44_100) / 1152);
  const buf = Buffer.alloc(frames * 417);
  for (let i = 0; i < frames; i++) buf.writeUInt32BE(0xfffb9064, i * 417);
  return buf;
}

async function uploadTone(token: string, track: string) {
  const form = new FormData();
  form.append("trackName", track);
  form.append("artistName", "The Native Path");
  form.append("file", new File([new Uint8Array(mp3(14))], "tone.mp3", { type: "audio/mpeg" }));
  const res = await fetch(`${base()}/api/upload-service/upload/song`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  const body = (await res.json()) as { status: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body.status).toBe("VERIFIED");
}

type Path = "hls.js" | "native";

/**
 * Forces a path before any page script runs: without MediaSource hls.js reports itself
 * unsupported and the player falls back to native HLS; without native HLS (canPlayType says
 * no) the player can only use hls.js, which it tries first anyway.
 */
function force(path: Path) {
  if (path === "native") {
    for (const name of ["MediaSource", "ManagedMediaSource", "WebKitMediaSource"])
      delete (window as unknown as Record<string, unknown>)[name];
  } else {
    const canPlay = HTMLMediaElement.prototype.canPlayType;
    HTMLMediaElement.prototype.canPlayType = function (type: string) {
      return /mpegurl/i.test(type) ? "" : canPlay.call(this, type);
    };
  }
}

async function playThrough(
  path: Path,
  account: { email: string; password: string },
  track: string,
) {
  const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(force, path);
  const page: Page = await logIn(context, account.email, "/upload", account.password);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Who fetched the segments: the media element itself ("media") or a script (hls.js).
  const segmentFetches: string[] = [];
  const containers = new Set<string>();
  page.on("request", (r: Request) => {
    if (!r.url().includes("/segments/")) return;
    segmentFetches.push(r.resourceType());
    containers.add(new URL(r.url()).searchParams.get("c") ?? "mp3");
  });

  const row = page.getByTestId("my-upload").filter({ hasText: track }).first();
  await row.waitFor();
  await row.getByTestId("play-song").click();
  const player = page.getByTestId("player");
  const audio = page.getByTestId("player-audio");
  await expect
    .poll(() => player.getAttribute("data-state"), { timeout: 20_000, interval: 250 })
    .toBe("playing");
  // Past the first segment (6 s) into the second: playback advances across a boundary.
  await expect
    .poll(() => audio.evaluate((a: HTMLAudioElement) => a.currentTime), {
      timeout: 30_000,
      interval: 250,
    })
    .toBeGreaterThan(7);
  const media = await audio.evaluate((a: HTMLAudioElement) => ({
    error: a.error?.code ?? null,
    src: a.src,
    mediaSource: "MediaSource" in window,
  }));
  expect(media.error).toBeNull();
  expect(await player.getAttribute("data-state")).not.toBe("error");
  expect(media.src.startsWith("blob:")).toBe(true);
  expect(segmentFetches.length).toBeGreaterThanOrEqual(2);
  if (path === "native") {
    expect(media.mediaSource).toBe(false);
    expect(new Set(segmentFetches)).toEqual(new Set(["media"]));
    // Chromium's native HLS demuxes MPEG-TS only: the native path asks for it.
    expect(containers).toEqual(new Set(["ts"]));
  } else {
    expect(media.mediaSource).toBe(true);
    expect(segmentFetches).not.toContain("media");
    // hls.js plays the packed audio, timestamp tag first.
    expect(containers).toEqual(new Set(["mp3"]));
  }
  await shot(page, `hls-${path === "native" ? "native" : "hlsjs"}-playing-1440`);
  expect(errors).toEqual([]);
  await context.close();
}

describe("an upload plays through both HLS paths", () => {
  it("plays through hls.js, then through the native <audio> blob: playlist path", async () => {
    const account = await madeAccount("Native Listener");
    const track = `Native Tone ${Date.now().toString(36)}`;
    await uploadTone(account.token, track);
    await playThrough("hls.js", account, track);
    await playThrough("native", account, track);
  });
});

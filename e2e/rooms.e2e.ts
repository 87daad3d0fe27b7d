import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, shot, useBrowser, logIn, tokenFor } from "./browser";

// Two people in one room (issue 4, "Tests"): Sam creates a room, takes a seat and plays;
// Lou hears the same song at the same offset (within 100 ms by the server clock), likes it,
// and both pages show the count.
const base = () => inject("baseURL");
const SAM = "dj.sam@hangout.local";
const LOU = "lou@hangout.local";

interface Song {
  songId: string;
  trackName: string;
  status: string;
}

const getBrowser = useBrowser();

/** This page's playback offset by its own server clock: audio time minus where the room is. */
const offsetOf = (page: Page) =>
  page.evaluate(() => {
    const audio = document.querySelector<HTMLAudioElement>('audio[data-testid="player-audio"]')!;
    const room = (
      window as unknown as {
        __hangoutRoom: { read: () => { serverNow: number; startTime: number | null } };
      }
    ).__hangoutRoom.read();
    return {
      offset: audio.currentTime - (room.serverNow - (room.startTime ?? 0)) / 1000,
      currentTime: audio.currentTime,
      paused: audio.paused,
    };
  });

const playing = (page: Page) =>
  page.waitForFunction(
    () => {
      const a = document.querySelector<HTMLAudioElement>('audio[data-testid="player-audio"]');
      return !!a && !a.paused && a.currentTime > 0.5 && a.readyState >= 3;
    },
    undefined,
    { timeout: 30_000 },
  );

describe("rooms: two listeners in sync", () => {
  it("Sam creates a room and plays; Lou hears it at the same offset and likes it", async () => {
    const demo = (
      await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")
    ).data.filter((s) => s.status === "VERIFIED");
    expect(demo.length, "public demo songs").toBeGreaterThanOrEqual(2);
    const samToken = await tokenFor(SAM);
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token: samToken });
    for (const s of demo.slice(0, 2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: samToken,
        body: JSON.stringify({ songId: s.songId }),
      });

    const samCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const louCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    const sam = await logIn(samCtx, SAM, "/rooms");
    sam.on("pageerror", (e) => errors.push(`sam: ${e}`));
    await shot(sam, "rooms-01-browse-1440");

    // Create the room through the UI.
    await sam.getByTestId("create-room").click();
    await sam.waitForURL(/\/rooms\/new$/);
    const name = `Sync check ${Date.now().toString(36)}`;
    await sam.fill('input[name="name"]', name);
    await sam.fill('textarea[name="description"]', "Two listeners, one song, one clock.");
    await sam.locator("label", { has: sam.getByTestId("design-FESTIVAL") }).click();
    await sam.selectOption('select[name="numberOfDjs"]', "3");
    await shot(sam, "rooms-02-create-1440");
    await Promise.all([
      sam.waitForURL((u) => /^\/rooms\/(?!new$)[^/]+$/.test(u.pathname)),
      sam.locator('main form button[type="submit"]').click(),
    ]);
    const roomPath = new URL(sam.url()).pathname;
    await expect
      .poll(() => sam.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await expect(sam.getByTestId("nothing-playing").isVisible()).resolves.toBe(true);
    await shot(sam, "rooms-03-empty-room-1440");

    const lou = await logIn(louCtx, LOU, roomPath);
    lou.on("pageerror", (e) => errors.push(`lou: ${e}`));
    // Play tracking from inside the room: what Lou's player reports to POST /kinesis.
    const kinesis: { topic: string; kinesisDataRecord: Record<string, unknown> }[] = [];
    lou.on("request", (r) => {
      if (r.method() === "POST" && r.url().includes("/api/audit-service/kinesis"))
        kinesis.push(r.postDataJSON());
    });
    await expect
      .poll(() => lou.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");

    // Sam takes a seat: his first queued song starts on both pages.
    await sam.getByTestId("take-seat").click();
    await expect
      .poll(() => sam.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBeTruthy();
    const track = await sam.getByTestId("np-track").textContent();
    expect(demo.slice(0, 2).map((s) => s.trackName)).toContain(track);
    await expect
      .poll(() => lou.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBe(track);
    await Promise.all([playing(sam), playing(lou)]);
    // Let the drift correction settle, then compare offsets by each page's server clock.
    await sam.waitForTimeout(2500);
    const [a, b] = await Promise.all([offsetOf(sam), offsetOf(lou)]);
    expect(a.paused || b.paused).toBe(false);
    console.log(
      `rooms e2e: playback offsets by the server clock: sam ${a.offset.toFixed(3)} s, lou ${b.offset.toFixed(3)} s`,
    );
    expect(
      Math.abs(a.offset - b.offset),
      `offsets sam ${a.offset.toFixed(3)} lou ${b.offset.toFixed(3)}`,
    ).toBeLessThan(0.1);

    // Lou likes the song: at once on Lou's page, then both show the server's count.
    await lou.getByTestId("vote-like").click();
    await expect
      .poll(() => lou.getByTestId("vote-like-count").textContent(), { timeout: 10_000 })
      .toBe("1");
    await expect
      .poll(() => sam.getByTestId("vote-like-count").textContent(), { timeout: 10_000 })
      .toBe("1");
    await expect(lou.getByTestId("vote-like").getAttribute("aria-pressed")).resolves.toBe("true");

    // Lou stands at the same spot of the floor on both pages (allUserData's position).
    const spot = async (page: Page) => {
      const el = page.getByTestId("floor-user").first();
      return {
        x: await el.getAttribute("data-x"),
        y: await el.getAttribute("data-y"),
        left: await el.evaluate((e) => (e as HTMLElement).style.left),
      };
    };
    await expect.poll(() => sam.getByTestId("floor-user").count(), { timeout: 10_000 }).toBe(1);
    const [onSam, onLou] = [await spot(sam), await spot(lou)];
    expect(onSam.x).toBe(onLou.x);
    expect(onSam.y).toBe(onLou.y);
    expect(Number(onSam.x)).toBeGreaterThanOrEqual(0);
    expect(Number(onSam.x)).toBeLessThan(1);
    expect(onSam.left).toContain("calc(");

    // Lou pauses: the play record she sends carries the room (slug, owner, DJ) and the room's playId.
    const roomPlay = await lou.evaluate(
      () =>
        (
          window as unknown as { __hangoutRoom: { read: () => { playId: string | null } } }
        ).__hangoutRoom.read().playId,
    );
    await lou.getByTestId("player-toggle").click();
    await expect
      .poll(() => kinesis.filter((k) => k.topic === "play-record").length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const sent = kinesis.find((k) => k.topic === "play-record")!.kinesisDataRecord;
    expect(sent).toMatchObject({
      roomSlug: roomPath.split("/").pop()!.toLowerCase(),
      playId: roomPlay,
    });
    expect(sent.djUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.roomOwnerUuid).toBe(sent.djUuid); // Sam made the room and plays in it
    await lou.getByTestId("player-toggle").click();

    // A reload keeps Lou's own vote pressed (the room's private yourVote echo).
    await lou.reload();
    await expect
      .poll(() => lou.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await expect
      .poll(() => lou.getByTestId("vote-like").getAttribute("aria-pressed"), { timeout: 10_000 })
      .toBe("true");
    await expect(lou.getByTestId("vote-dislike").getAttribute("aria-pressed")).resolves.toBe(
      "false",
    );
    await expect
      .poll(() => lou.getByTestId("vote-like-count").textContent(), { timeout: 10_000 })
      .toBe("1");
    await playing(lou);

    // A signed-out visitor listens with a guest token: the same song plays, no seat on offer.
    const guestCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const guest = await guestCtx.newPage();
    guest.on("pageerror", (e) => errors.push(`guest: ${e}`));
    await guest.goto(`${base()}${roomPath}`);
    await expect
      .poll(() => guest.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await expect
      .poll(() => guest.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBe(track);
    await playing(guest);
    expect(await guest.getByTestId("take-seat").count()).toBe(0);
    // The guest's free plays (spec 001 Playback): this song is their first, and a reload
    // keeps the same guest, so the same song is still their first, not a second (a 30 s demo
    // song may have ended meanwhile on a slow machine: then the next one is their second).
    const playIdOf = () =>
      guest.evaluate(
        () =>
          (
            window as unknown as { __hangoutRoom: { read: () => { playId: string | null } } }
          ).__hangoutRoom.read().playId,
      );
    await expect
      .poll(() => guest.getByTestId("free-plays").textContent(), { timeout: 10_000 })
      .toContain("song 1 of 5 free");
    const before = await playIdOf();
    await guest.reload();
    await expect
      .poll(
        async () => {
          const text = (await guest.getByTestId("free-plays").textContent()) ?? "";
          const now = await playIdOf();
          return now === before ? text.includes("song 1 of 5") : text.includes("song 2 of 5");
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await guest.screenshot({ path: ".e2e/shots/rooms-05c-guest-free-plays-1440.png" });
    // Sam skips until the guest has had their five: the sixth song is shown, not played, and
    // the page offers a free account instead (the stream refuses the playlist too).
    // (Sam's queue gets the other demo songs first: a song played here does not come back
    // within the repeat window, so two songs would end his stay before the guest's sixth.)
    expect(demo.length, "demo songs for six plays").toBeGreaterThanOrEqual(7);
    for (const s of demo.slice(2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: samToken,
        body: JSON.stringify({ songId: s.songId }),
      });
    for (let i = 0; i < 8; i++) {
      if (await guest.getByTestId("free-plays-over").count()) break;
      const was = await playIdOf();
      await sam.getByTestId("skip-song").click();
      await expect.poll(playIdOf, { timeout: 15_000 }).not.toBe(was);
    }
    await expect
      .poll(() => guest.getByTestId("free-plays-over").count(), { timeout: 10_000 })
      .toBe(1);
    expect(await guest.getByTestId("free-plays-over").textContent()).toContain("Sign up");
    expect(
      await guest.evaluate(() => {
        const a = document.querySelector<HTMLAudioElement>('audio[data-testid="player-audio"]');
        return !a || a.paused || a.muted || a.volume === 0;
      }),
    ).toBe(true);
    await guest.screenshot({ path: ".e2e/shots/rooms-05d-guest-over-free-plays-1440.png" });
    await guestCtx.close();

    // Lou says hi in the chat: Sam's chat shows the line.
    await lou.getByTestId("chat-panel").getByTestId("chat-input").fill("Great tune, Sam!");
    await lou.getByTestId("chat-panel").getByTestId("chat-input").press("Enter");
    await expect
      .poll(() => sam.getByTestId("chat-panel").getByTestId("chat-line").allTextContents(), {
        timeout: 10_000,
      })
      .toEqual(expect.arrayContaining([expect.stringContaining("Great tune, Sam!")]));

    await shot(sam, "rooms-04-room-dj-1440");
    await shot(lou, "rooms-05-room-listener-1440");
    await lou.screenshot({ path: ".e2e/shots/rooms-05b-room-listener-viewport-1440.png" });
    await lou.setViewportSize({ width: 390, height: 844 });
    await shot(lou, "rooms-06-room-listener-390");
    await lou.getByTestId("open-chat").click();
    await expect
      .poll(() => lou.locator("#chat-drawer").getByTestId("chat-line").count())
      .toBeGreaterThan(0);
    await lou.screenshot({ path: ".e2e/shots/rooms-06b-chat-drawer-390.png" });
    await lou.keyboard.press("Escape");
    await sam.setViewportSize({ width: 390, height: 844 });
    await sam.goto(`${base()}/rooms`);
    // Favourite the room: the star answers at once, and the favourite survives a reload.
    await sam
      .getByTestId("public-rooms")
      .getByTestId("room-card")
      .filter({ hasText: name })
      .getByTestId("favorite-toggle")
      .click();
    await expect
      .poll(() =>
        sam.getByTestId("favorites").getByTestId("room-card").filter({ hasText: name }).count(),
      )
      .toBe(1);
    await sam.waitForTimeout(500);
    await sam.reload();
    await expect
      .poll(() =>
        sam.getByTestId("favorites").getByTestId("room-card").filter({ hasText: name }).count(),
      )
      .toBe(1);
    // The card says what plays in the room and who is playing it (the lists read the live room).
    const card = sam.getByTestId("public-rooms").getByTestId("room-card").filter({ hasText: name });
    // Whatever the room plays now (demo songs are 30 s, so on a slow machine the first one
    // may have ended): the card, as the list was loaded, and a listener's page agree.
    await expect
      .poll(
        async () => {
          const playing = (await lou.getByTestId("np-track").textContent()) ?? "";
          const shown = (await card.getByTestId("room-card-song").textContent()) ?? "";
          if (playing && shown.includes(playing)) return true;
          await sam.reload(); // the list is read once per load; the song changed since
          return false;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await expect(card.getByTestId("room-card-dj").textContent()).resolves.toMatch(/^Played by \S/);
    await sam.evaluate(() => window.scrollTo(0, 0));
    await shot(sam, "rooms-07-browse-390");
    expect(errors).toEqual([]);
    await samCtx.close();
    await louCtx.close();
  });
});

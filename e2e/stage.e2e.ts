import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, madeAccount, shot, tokenFor, useBrowser } from "./browser";

// From songs to stage (issue 20), in Spanish: a new listener signs up, opens a room whose
// only seat is taken, fills their queue from the room's queue drawer without leaving the
// room, joins the waiting list, is seated when the DJ steps down, and their song plays.
const base = () => inject("baseURL");
const SAM = "dj.sam@hangout.local";

const getBrowser = useBrowser();

type Song = { songId: string; trackName: string; status: string };

const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);

describe("stage: from songs to stage", () => {
  it("a new user signs up, queues a song from the room, waits in line, takes the freed seat and plays", async () => {
    const demo = (
      await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")
    ).data.filter((s) => s.status === "VERIFIED");
    expect(demo.length, "public demo songs").toBeGreaterThanOrEqual(2);
    const mySong = demo[1];

    // A one-seat room, its seat held by a DJ with a song.
    const samToken = await tokenFor(SAM);
    const room = await api<{ slug: string; uuid: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: samToken,
        body: JSON.stringify({ name: `Stage ${Date.now().toString(36)}`, design: "CLUB" }),
      },
    );
    await api(`/api/room-service/rooms/dj-seats/${room.uuid}/infrastructure`, {
      method: "PATCH",
      token: samToken,
      body: JSON.stringify({ numberOfDjs: 1 }),
    });
    const roomPath = `/rooms/${room.slug}`;
    const dj = await madeAccount("Stage Dee");
    // Demo songs are 30 s long and none repeats within the hour: enough of them keep the DJ
    // on stage for the whole test.
    for (const song of demo.filter((x) => x.songId !== mySong.songId))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: dj.token,
        body: JSON.stringify({ songId: song.songId }),
      });
    const errors: string[] = [];
    const djCtx = await getBrowser().newContext({ viewport: { width: 1280, height: 720 } });
    const djPage = await logIn(djCtx, dj.email, roomPath, dj.password);
    djPage.on("pageerror", (e) => errors.push(`dj: ${e}`));
    await expect.poll(() => statusOf(djPage), { timeout: 15_000 }).toBe("open");
    await djPage.getByTestId("take-seat").click();
    await djPage.getByTestId("dj-seat").first().waitFor();

    // A new listener signs up, in Spanish.
    const email = `e2e.stage.${Date.now().toString(36)}@example.com`;
    const ctx = await getBrowser().newContext({
      viewport: { width: 1440, height: 900 },
      locale: "es-ES",
    });
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(`new: ${e}`));
    await page.goto(`${base()}/signup?lang=es`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', "a long enough password");
    await page.fill('input[name="nickname"]', "Nueva DJ");
    await Promise.all([
      page.waitForURL(/\/verify-email/),
      page.locator('form button[type="submit"]').last().click(),
    ]);

    // The room: the only seat is taken; the empty queue's prompt opens the drawer.
    await page.goto(`${base()}${roomPath}?lang=es`);
    await expect.poll(() => statusOf(page), { timeout: 15_000 }).toBe("open");
    expect(await page.getAttribute("html", "lang")).toBe("es");
    const join = page.getByTestId("waitlist-join");
    await join.waitFor();
    expect(await join.textContent()).toContain("Apuntarme a la lista de espera");
    await join.click();
    const prompt = page.getByTestId("stage-error");
    await prompt.waitFor();
    expect(await prompt.textContent()).toBe(
      "Tu cola está vacía: añade una canción antes de ocupar un asiento.",
    );
    await shot(page, "stage-01-empty-queue-prompt-es-1440");
    await page.getByTestId("fill-queue").click();

    // The drawer: search, add (then "already in your queue"), without leaving the room.
    const drawer = page.getByTestId("queue-drawer");
    await drawer.getByText("Tu cola está vacía").waitFor();
    const word = mySong.trackName.split(/\s+/)[0];
    await drawer.getByTestId("queue-search-input").fill(word);
    await drawer.getByTestId("queue-search-submit").click();
    const hit = drawer
      .getByTestId("queue-search-results")
      .locator("li")
      .filter({ has: page.getByTestId("song-track").getByText(mySong.trackName, { exact: true }) })
      .first();
    await hit.waitFor();
    await hit.getByTestId("add-to-queue").click();
    await page
      .getByTestId("toast-success")
      .filter({ hasText: "añadida a tu cola" })
      .first()
      .waitFor();
    await drawer.getByTestId("queue-song").first().waitFor();
    expect(await drawer.getByTestId("queue-count").textContent()).toBe("1 canción en tu cola");
    await hit.getByTestId("add-to-queue").click();
    await page
      .getByTestId("toast-info")
      .filter({ hasText: "ya está en tu cola" })
      .first()
      .waitFor();
    expect(await drawer.getByTestId("queue-song").count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe(roomPath);
    await shot(page, "stage-02-queue-drawer-es-1440");
    await drawer.getByTestId("close-queue").click();
    // The prompt was answered: it is gone.
    await prompt.waitFor({ state: "detached" });

    // The waiting list: joined, first in line, seen by the DJ too.
    await page.getByTestId("waitlist-join").click();
    const place = page.getByTestId("waitlist-place");
    await place.waitFor();
    expect(await place.textContent()).toBe("Eres el siguiente de la lista");
    await djPage.getByTestId("waitlist-entry").filter({ hasText: "Nueva DJ" }).waitFor();
    await shot(page, "stage-03-waiting-list-es-1440");

    // The DJ steps down: the seat goes to the first in line, whose song starts.
    await djPage.getByTestId("leave-seat").click();
    await page.getByTestId("leave-seat").waitFor({ timeout: 15_000 });
    await page.getByTestId("dj-seat").filter({ hasText: "Nueva DJ" }).waitFor();
    await page.getByText(mySong.trackName).first().waitFor({ timeout: 15_000 });
    expect(await page.getByTestId("waitlist").count()).toBe(0);
    // Their one song cannot play again within the hour: they are told now, while it plays,
    // not dropped without a word after it.
    const notice = page.getByTestId("queue-notice");
    await expect
      .poll(() => notice.getAttribute("data-kind", { timeout: 1000 }).catch(() => null), {
        timeout: 15_000,
      })
      .toBe("empty");
    expect(await notice.textContent()).toContain("Añade canciones antes de tu turno");
    await shot(page, "stage-04-seated-playing-es-1440");

    // The same room on a phone: nothing of it in the way.
    await page.setViewportSize({ width: 390, height: 844 });
    // Nothing wider than the phone (the stage's skip and leave buttons wrap).
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await shot(page, "stage-05-seated-es-390");
    await page.getByTestId("open-queue").click();
    await page.getByTestId("queue-drawer").getByTestId("queue-song").first().waitFor();
    await shot(page, "stage-06-queue-drawer-es-390");

    expect(errors).toEqual([]);
    await ctx.close();
    await djCtx.close();
  });
});

import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, shot, useBrowser } from "./browser";

// Finding a room and a floor that dances (issue 20): a new listener signs up, goes from the
// home page to the rooms, finds a jazz yacht room by its name and filters, and joins it;
// while the DJ's song plays the floor nods, and a like makes the listener's avatar bob and
// the floor dance harder. Then the same pages in Spanish and at phone width.
const base = () => inject("baseURL");
const getBrowser = useBrowser();

interface Song {
  songId: string;
  status: string;
}

/** The dancer around the first listener on the floor: its state and its running animation. */
const floorDancer = (page: Page) =>
  page.evaluate(() => {
    const wrap = document.querySelector<HTMLElement>(
      '[data-testid="floor-user"] [data-testid="dancer"]',
    );
    const inner = wrap?.firstElementChild as HTMLElement | null;
    return {
      level: wrap?.dataset.dance ?? null,
      classes: inner?.className ?? "",
      animation: inner ? getComputedStyle(inner).animationName : null,
    };
  });

describe("discovery: a new listener finds a room and the floor dances", () => {
  it("signs up, finds the room from the home page by search and filters, joins; the floor nods and bobs on a like", async () => {
    const tag = Date.now().toString(36);
    const roomName = `Blue Note ${tag}`;

    // The DJ: a fresh account with two demo songs queued and a jazz room on a yacht.
    const djEmail = `dj-${tag}@e2e.test`;
    const djPassword = "correct horse battery";
    const dj = await api<{ token: string }>("/api/user-service/users/sign-up", {
      method: "POST",
      body: JSON.stringify({ email: djEmail, password: djPassword, nickname: `DJ ${tag}` }),
    });
    const demo = (
      await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")
    ).data.filter((s) => s.status === "VERIFIED");
    expect(demo.length, "public demo songs").toBeGreaterThanOrEqual(2);
    for (const s of demo.slice(0, 2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: dj.token,
        body: JSON.stringify({ songId: s.songId }),
      });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: dj.token,
      body: JSON.stringify({ name: roomName, genre: "jazz", design: "YACHT", autoSkipRatio: 0 }),
    });

    // The listener signs up through the page and goes home.
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${base()}/signup`);
    await page.fill('input[name="email"]', `listener-${tag}@e2e.test`);
    await page.fill('input[name="password"]', "correct horse battery");
    await page.fill('input[name="nickname"]', `Listener ${tag}`);
    await Promise.all([
      page.waitForURL(/\/verify-email/),
      page.locator('form button[type="submit"]').last().click(),
    ]);
    await page.goto(`${base()}/`);
    // Signed in, the home page is live rooms, not the mock-up; its main button goes to rooms.
    await expect(page.getByTestId("live-home").isVisible()).resolves.toBe(true);
    await expect(page.getByText("Nova").count()).resolves.toBe(0);
    await expect(page.getByTestId("home-busiest").isVisible()).resolves.toBe(true);
    await shot(page, "discovery-01-home-1440");
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/rooms"),
      page.getByTestId("home-find-room").click(),
    ]);

    // Search by name, then narrow by genre and design (each select submits the form).
    await page.getByTestId("room-search").fill(`note ${tag}`);
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("q") === `note ${tag}`),
      page.getByTestId("room-search-submit").click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("genre") === "jazz"),
      page.getByTestId("room-genre").selectOption("jazz"),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("design") === "YACHT"),
      page.getByTestId("room-design").selectOption("YACHT"),
    ]);
    const cards = page.getByTestId("public-rooms").getByTestId("room-card");
    await expect(cards.count()).resolves.toBe(1);
    await expect(cards.first().textContent()).resolves.toContain(roomName);
    await expect(cards.first().getByTestId("room-card-genre").textContent()).resolves.toBe("Jazz");
    await shot(page, "discovery-02-rooms-filtered-1440");
    // Another genre: nothing matches, and the page says so.
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("genre") === "rock"),
      page.getByTestId("room-genre").selectOption("rock"),
    ]);
    await expect(cards.count()).resolves.toBe(0);
    await expect(page.getByTestId("public-rooms").textContent()).resolves.toContain(
      "No room matches",
    );
    await page.goBack();
    await page.waitForURL((u) => u.searchParams.get("genre") === "jazz");

    // The DJ takes a seat and plays; the card then shows the song and its DJ.
    const djCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const djPage = await logIn(djCtx, djEmail, `/rooms/${room.slug}`, djPassword);
    await djPage.getByTestId("take-seat").first().click();
    await djPage.getByTestId("dj-seat").first().waitFor();
    await expect
      .poll(
        async () => {
          await page.reload();
          return (await cards.first().getByTestId("room-card-dj").count()) > 0;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await expect(cards.first().getByTestId("room-card-dj").textContent()).resolves.toContain(
      `DJ ${tag}`,
    );
    await shot(page, "discovery-03-card-playing-1440");

    // The listener joins from the card; on the floor their avatar nods to the beat.
    await Promise.all([
      page.waitForURL((u) => u.pathname === `/rooms/${room.slug}`),
      cards.first().getByRole("link").first().click(),
    ]);
    await page.getByTestId("floor-user").first().waitFor({ timeout: 20_000 });
    await expect
      .poll(() => floorDancer(page), { timeout: 20_000 })
      .toMatchObject({
        level: "nod",
        animation: "avatar-nod",
      });
    expect((await floorDancer(page)).classes).toContain("dance-nod");
    // The DJ dances on the stage too.
    await expect(
      page.getByTestId("dj-seat").first().getByTestId("dancer").getAttribute("data-dance"),
    ).resolves.toBe("nod");

    // A like: the listener's avatar bobs once, and the vibe (1 like, 1 listener) lifts the floor.
    const bob = page.waitForSelector(
      '[data-testid="floor-user"] [data-testid="dancer"][data-bobbing="true"]',
      { timeout: 10_000 },
    );
    await page.getByTestId("vote-like").click();
    const bobbing = await bob;
    await expect(
      bobbing.evaluate((el) => ({ cls: el.className, anim: getComputedStyle(el).animationName })),
    ).resolves.toEqual({ cls: expect.stringContaining("dance-bob"), anim: "avatar-bob" });
    await expect
      .poll(async () => (await floorDancer(page)).animation, { timeout: 10_000 })
      .toMatch(/^avatar-(groove|hype)$/);
    expect((await floorDancer(page)).level).toMatch(/^(groove|hype)$/);
    await shot(page, "discovery-04-room-dancing-1440");
    // The DJ's page sees the listener's bob too (the like travels as the listener's jump).
    await djPage.waitForSelector('[data-testid="floor-user"] [data-testid="dancer"]');
    await expect
      .poll(
        () =>
          djPage
            .locator('[data-testid="floor-user"] [data-testid="dancer"]')
            .first()
            .getAttribute("data-dance"),
        { timeout: 10_000 },
      )
      .toMatch(/^(groove|hype)$/);

    // Reduced motion: the dance is still there as a state, but nothing moves.
    await page.emulateMedia({ reducedMotion: "reduce" });
    await expect.poll(async () => (await floorDancer(page)).animation).toBe("none");
    await page.emulateMedia({ reducedMotion: "no-preference" });

    // Spanish at phone width: the rooms page and the room.
    const es = await getBrowser().newContext({
      viewport: { width: 390, height: 844 },
      locale: "es-ES",
    });
    const phone = await logIn(es, djEmail, "/rooms", djPassword);
    await phone.goto(`${base()}/rooms?lang=es&q=${encodeURIComponent(tag)}&genre=jazz`);
    await expect(phone.getByTestId("room-filters").textContent()).resolves.toContain("Género");
    await expect(phone.getByTestId("room-card").first().textContent()).resolves.toContain(roomName);
    await shot(phone, "discovery-05-rooms-es-390");
    await phone.goto(`${base()}/?lang=es`);
    await expect(phone.getByTestId("home-find-room").textContent()).resolves.toBe(
      "Encuentra una sala",
    );
    await shot(phone, "discovery-06-home-es-390");
    await phone.setViewportSize({ width: 1440, height: 900 });
    await phone.goto(`${base()}/rooms?lang=es`);
    await shot(phone, "discovery-07-rooms-es-1440");
    const listenerPhone = await ctx.newPage();
    await listenerPhone.setViewportSize({ width: 390, height: 844 });
    await listenerPhone.goto(`${base()}/rooms/${room.slug}?lang=es`);
    await listenerPhone.getByTestId("floor-user").first().waitFor({ timeout: 20_000 });
    await shot(listenerPhone, "discovery-08-room-es-390");

    expect(errors).toEqual([]);
    await Promise.all([ctx.close(), djCtx.close(), es.close()]);
  });
});

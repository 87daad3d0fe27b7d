import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// The demo feels alive (issue 20): a seeded demo room has its demo DJ (a seeded bot the Room
// keeps on stage, DEMO_DJS in .dev.vars) playing the demo music the moment someone opens it;
// its avatar is on stage, nodding. Confetti bought in the room rains on every page there
// (a Spanish page sees its banner), and a page that prefers reduced motion gets the banner
// without the falling pieces.
const base = () => inject("baseURL");
const MERCH = "/api/merch-service/api/v1";
const ADMIN = "admin@hangout.local";
const ADMIN_PASSWORD = "admin-password";
const KIM = "kim@hangout.local";
const LOU = "lou@hangout.local";
const MOE = "mod@hangout.local";
const ROOM = "/rooms/sunset-deck";

const getBrowser = useBrowser();

const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);

describe("demo room", () => {
  it("opening a seeded demo room shows its demo DJ on stage, playing and nodding to the beat", async () => {
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const kim = await logIn(ctx, KIM, ROOM);
    const errors: string[] = [];
    kim.on("pageerror", (e) => errors.push(String(e)));
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");

    const seat = kim.getByTestId("dj-seat").filter({ hasText: "DJ Sol" });
    await seat.waitFor({ timeout: 20_000 });
    // Its avatar (the seeded art, not a blank), dancing while the song plays.
    expect(await seat.locator("img[data-avatar]").getAttribute("data-avatar")).toBe("vinyl-spin");
    await expect
      .poll(() => seat.getByTestId("dancer").getAttribute("data-dance"), { timeout: 20_000 })
      .toMatch(/nod|groove|hype/);
    await expect
      .poll(() => kim.getByTestId("np-track").textContent(), { timeout: 20_000 })
      .toBeTruthy();
    expect(await seat.getAttribute("data-lit")).toBe("true");
    await shot(kim, "demo-room-01-dj-playing-1440");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it("Lou throws the shop's Confetti: Moe's Spanish page sees it rain, Kim (reduced motion) sees the banner only; then a sticker pops up", async () => {
    const adminToken = await tokenFor(ADMIN, ADMIN_PASSWORD);
    const louToken = await tokenFor(LOU);
    const acc = await api<{ id: string; balance: number }>(`${MERCH}/token-accounts`, {
      method: "POST",
      token: louToken,
    });
    if (acc.balance < 100)
      await api(`${MERCH}/token-accounts/${acc.id}/grant`, {
        method: "POST",
        token: adminToken,
        body: JSON.stringify({ amount: 100 - acc.balance }),
      });

    const errors: string[] = [];
    const moeCtx = await getBrowser().newContext({
      viewport: { width: 390, height: 844 },
      locale: "es-ES",
    });
    const moe = await logIn(moeCtx, MOE, ROOM, "moderator-password");
    moe.on("pageerror", (e) => errors.push(`moe: ${e}`));
    await moe.goto(`${base()}${ROOM}?lang=es`);
    const kimCtx = await getBrowser().newContext({
      viewport: { width: 1280, height: 720 },
      reducedMotion: "reduce",
    });
    const kim = await logIn(kimCtx, KIM, ROOM);
    kim.on("pageerror", (e) => errors.push(`kim: ${e}`));
    const louCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const lou = await logIn(louCtx, LOU, ROOM);
    lou.on("pageerror", (e) => errors.push(`lou: ${e}`));
    for (const p of [moe, kim, lou])
      await expect.poll(() => statusOf(p), { timeout: 15_000 }).toBe("open");

    // The seeded Confetti (scripts/seed-demo.mjs), from the gift drawer beside the chat box.
    await lou.getByTestId("send-something").click();
    const card = lou
      .getByTestId("shop-drawer")
      .getByTestId("consumable-card")
      .filter({ has: lou.getByText("Confetti", { exact: true }) });
    await card.waitFor({ timeout: 15_000 });
    await card.getByTestId("consumable-send").click();
    await lou.getByTestId("confirm").click();

    // Every page in the room plays it when it arrives (each for a few seconds, so the three
    // are watched at once): what each showed is read the moment its banner appears.
    const shots = ["demo-room-02-confetti-es-390", null, "demo-room-03-reduced-motion-1280"];
    const seen = await Promise.all(
      [moe, lou, kim].map(async (p, i) => {
        const banner = p.getByTestId("room-gift-banner");
        await banner.waitFor({ timeout: 15_000 });
        // The viewport mid-fall, for a person to look at (the overlay is fixed to it).
        const name = shots[i];
        if (name) await p.screenshot({ path: `.e2e/shots/${name}.png` });
        return p.evaluate(() => {
          const pieces = [...document.querySelectorAll(".confetti-piece")];
          return {
            banner: document.querySelector('[data-testid="room-gift-banner"]')?.textContent,
            pieces: pieces.length,
            moving: pieces.filter((el) => getComputedStyle(el).display !== "none").length,
          };
        });
      }),
    );
    // Nothing in the way: the chat button takes a click through the falling confetti.
    const input = moe.getByTestId("open-chat");
    const box = await input.boundingBox();
    expect(box).not.toBeNull();
    {
      const hit = await moe.evaluate(
        ([x, y]) =>
          document.elementFromPoint(x, y)?.closest("[data-testid]")?.getAttribute("data-testid"),
        [box!.x + box!.width / 2, box!.y + box!.height / 2],
      );
      expect(hit).toBe("open-chat");
    }

    // Moe's page (Spanish, phone): confetti over the room and the banner.
    expect(seen[0].banner).toBe("¡Lou Listener lanzó Confetti!");
    expect(seen[0].pieces).toBeGreaterThan(50);
    expect(seen[0].moving).toBe(seen[0].pieces);
    // Lou's own page plays it too.
    expect(seen[1].banner).toBe("Lou Listener threw Confetti!");
    expect(seen[1].moving).toBeGreaterThan(50);
    // Kim prefers reduced motion: the words, still; no falling pieces.
    expect(seen[2].banner).toBe("Lou Listener threw Confetti!");
    expect(seen[2].pieces).toBeGreaterThan(50);
    expect(seen[2].moving).toBe(0);

    // The show ends by itself; the chat keeps the line.
    await expect.poll(() => moe.getByTestId("room-gifts").count(), { timeout: 15_000 }).toBe(0);

    // A sticker pops up on the others' pages the same way: its picture, and the banner.
    if (!(await lou.getByTestId("shop-drawer").isVisible()))
      await lou.getByTestId("send-something").click();
    await lou
      .getByTestId("shop-drawer")
      .getByTestId("consumable-card")
      .filter({ has: lou.getByText("Fire sticker", { exact: true }) })
      .getByTestId("consumable-send")
      .click();
    await lou.getByTestId("confirm").click();
    const popped = moe.getByTestId("room-sticker");
    await popped.waitFor({ timeout: 15_000 });
    await moe.screenshot({ path: ".e2e/shots/demo-room-04-sticker-es-390.png" });
    expect(await popped.locator("img").getAttribute("src")).toMatch(/consumables/);
    expect(await moe.getByTestId("room-gift-banner").textContent()).toBe(
      "Lou Listener envió Fire sticker",
    );

    await moe.getByTestId("open-chat").click();
    await moe.getByTestId("chat-consumable").filter({ hasText: "Confetti" }).first().waitFor();
    await shot(moe, "demo-room-05-chat-line-es-390");
    await shot(lou, "demo-room-06-after-1440");
    expect(errors).toEqual([]);
    for (const c of [moeCtx, kimCtx, louCtx]) await c.close();
  });

  it("a stadium of 1,200: the page counts everyone, draws the first arrivals with +N, and Kim stands on the floor though the room does not name her", async () => {
    const adminToken = await tokenFor(ADMIN, ADMIN_PASSWORD);
    const room = await api<{ uuid: string; slug: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: adminToken,
        body: JSON.stringify({ name: `Stadium ${Date.now().toString(36)}` }),
      },
    );
    // The bench's synthetic crowd (development only): 1,200 present listeners, no sockets.
    await api(`/api/room-service/dev/rooms/${room.uuid}/crowd`, {
      method: "POST",
      token: adminToken,
      body: JSON.stringify({ fill: 1200 }),
    });
    const ctx = await getBrowser().newContext({ viewport: { width: 390, height: 844 } });
    const path = `/rooms/${room.slug}`;
    const kim = await logIn(ctx, KIM, path);
    const errors: string[] = [];
    kim.on("pageerror", (e) => errors.push(String(e)));
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");
    const kimUuid = (
      await api<{ uuid: string }>("/api/user-service/users/profile", {
        token: await tokenFor(KIM),
      })
    ).uuid;
    // Everyone counted (the crowd and Kim), written as English writes numbers.
    await expect
      .poll(() => kim.locator("#floor-heading").textContent(), { timeout: 15_000 })
      .toContain("(1,201)");
    await expect.poll(() => kim.getByText("1,201 here").count()).toBe(1);
    // 80 drawn (Kim first), the rest in the +N, which reads above the avatars.
    const floor = kim.getByTestId("floor");
    await floor.scrollIntoViewIfNeeded();
    expect(await kim.getByTestId("floor-user").count()).toBe(80);
    expect(await floor.locator(`[data-user="${kimUuid}"]`).count()).toBe(1);
    const more = kim.getByTestId("floor-more");
    expect(await more.textContent()).toBe("+1,121");
    const box = (await more.boundingBox())!;
    const onTop = await kim.evaluate(
      ([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid="floor-more"]') !== null,
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(onTop).toBe(true);
    await shot(kim, "demo-room-07-stadium-390");
    // Empty the room again: later files list rooms by their listeners.
    await api(`/api/room-service/dev/rooms/${room.uuid}/crowd`, {
      method: "POST",
      token: adminToken,
      body: JSON.stringify({ fill: 0 }),
    });
    expect(errors).toEqual([]);
    await ctx.close();
  });
});

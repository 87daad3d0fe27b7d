import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// Nothing covers the chat or the menus (issue 20, "The room page"): at three sizes the chat
// input, the send button and every item of the menu on a listener are the topmost element
// at their centre (what a click there would hit), not the player bar, a floor avatar or the
// stage. Sam owns the room and moderates; Kim and Lou stand on the floor.
const SAM = "dj.sam@hangout.local";
const KIM = "kim@hangout.local";
const LOU = "lou@hangout.local";
// The two smaller sizes read the room in Spanish (longer labels, the same rule).
const SIZES = [
  { width: 1440, height: 900, locale: "en-GB" },
  { width: 1280, height: 720, locale: "es-ES" },
  { width: 390, height: 844, locale: "es-ES" },
] as const;

const getBrowser = useBrowser();

const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);

/**
 * What covers `el` at its centre: null when the element itself (or something inside it) is
 * the topmost one there and the centre is inside the viewport, else a description of the
 * element in the way.
 */
async function coveredBy(el: Locator): Promise<string | null> {
  return el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (r.width === 0 || r.height === 0) return "not drawn (0 size)";
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight)
      return `outside the viewport at ${Math.round(x)},${Math.round(y)}`;
    const top = document.elementFromPoint(x, y);
    if (top && (top === node || node.contains(top))) return null;
    if (!top) return "nothing at its centre";
    const id = top.closest("[data-testid]")?.getAttribute("data-testid");
    return `${top.tagName.toLowerCase()}${id ? ` in [data-testid=${id}]` : ""}`;
  });
}

describe("room layout: nothing covers the chat or the menus", () => {
  it("the chat box and every menu item are clickable at 1440x900, 1280x720 and 390x844", async () => {
    const samToken = await tokenFor(SAM);
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: samToken,
      body: JSON.stringify({
        name: `Layout ${Date.now().toString(36)}`,
        design: "CLUB",
        description: "Where every button can be pressed.",
      }),
    });
    const roomPath = `/rooms/${room.slug}`;
    const errors: string[] = [];
    // The two listeners stay in the room for the whole test.
    for (const email of [KIM, LOU]) {
      const ctx = await getBrowser().newContext({ viewport: { width: 1280, height: 720 } });
      const p = await logIn(ctx, email, roomPath);
      p.on("pageerror", (e) => errors.push(`${email}: ${e}`));
      await expect.poll(() => statusOf(p), { timeout: 15_000 }).toBe("open");
    }

    for (const size of SIZES) {
      const ctx = await getBrowser().newContext({
        viewport: { width: size.width, height: size.height },
        locale: size.locale,
      });
      const sam = await logIn(ctx, SAM, roomPath);
      sam.on("pageerror", (e) => errors.push(`sam ${size.width}: ${e}`));
      await expect.poll(() => statusOf(sam), { timeout: 15_000 }).toBe("open");
      const where = `${size.width}x${size.height}-${size.locale.slice(0, 2)}`;
      expect(await sam.getAttribute("html", "lang")).toBe(size.locale.slice(0, 2));
      const phone = size.width < 1024;

      // The chat: beside the stage on desktop (visible without scrolling), a drawer on phones.
      if (phone) await sam.getByTestId("open-chat").click();
      const chat = phone ? sam.locator("#chat-drawer") : sam.getByTestId("chat-panel");
      const input = chat.getByTestId("chat-input");
      const send = chat.getByTestId("chat-send");
      await input.waitFor();
      expect(await coveredBy(input), `chat input at ${where}`).toBeNull();
      expect(await coveredBy(send), `send button at ${where}`).toBeNull();
      // ...and still after scrolling to the bottom of the page (the player bar is fixed there).
      if (!phone) {
        await sam.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        expect(await coveredBy(input), `chat input at ${where}, scrolled`).toBeNull();
        expect(await coveredBy(send), `send button at ${where}, scrolled`).toBeNull();
        await sam.evaluate(() => window.scrollTo(0, 0));
      }
      await shot(sam, `room-layout-chat-${where}`);
      // What the window shows (the full-page shot unrolls the sticky and fixed parts).
      await sam.screenshot({ path: `.e2e/shots/room-layout-chat-${where}-window.png` });
      if (phone) await sam.keyboard.press("Escape");

      // Every menu item on each listener on the floor.
      const triggers = sam.getByTestId("floor").getByTestId("user-menu-trigger");
      await expect.poll(() => triggers.count(), { timeout: 10_000 }).toBe(2);
      for (let i = 0; i < 2; i++) {
        const trigger = triggers.nth(i);
        await trigger.scrollIntoViewIfNeeded();
        expect(await coveredBy(trigger), `menu trigger ${i} at ${where}`).toBeNull();
        await trigger.click();
        const menu = sam.getByTestId("mod-menu");
        await menu.waitFor();
        const items = menu.getByRole("menuitem");
        const n = await items.count();
        // View profile, Send a gift, Block, Kick, Mute, Ban, Make moderator, Make owner.
        expect(n, `menu items at ${where}`).toBeGreaterThanOrEqual(8);
        for (let k = 0; k < n; k++) {
          const label = (await items.nth(k).textContent())?.trim();
          expect(await coveredBy(items.nth(k)), `"${label}" at ${where}`).toBeNull();
        }
        if (i === 0) {
          await shot(sam, `room-layout-menu-${where}`);
          await sam.screenshot({ path: `.e2e/shots/room-layout-menu-${where}-window.png` });
        }
        await sam.keyboard.press("Escape");
        await expect.poll(() => menu.count()).toBe(0);
      }
      await ctx.close();
    }
    expect(errors).toEqual([]);
  });
});

import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, madeAccount } from "./browser";
import {
  activityUrl,
  discordBrowser,
  frameShot,
  openInDiscord,
  PROXY_ORIGIN,
} from "./discord-client";
import { STUB_CLIENT_ID } from "./oauth-stub";

// Issue 16, the Discord Activity in Debian Chromium, inside a stand-in Discord client and
// Activity proxy (e2e/discord-client.ts): the page's Embedded App SDK does its handshake,
// AUTHORIZE and AUTHENTICATE with the stand-in client by postMessage; the code is traded by our
// server at the OAuth stand-in's token endpoint (e2e/oauth-stub.ts, the fetch boundary); the
// frame ends in the server's room, signed in, its socket live through the proxy.
const base = () => inject("baseURL");
const stub = () => inject("oauthStubURL");
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

const snowflake = () => String(1e17 + Math.floor(Math.random() * 1e16));
const frameOf = (page: Page) => page.frameLocator("#activity");
const frameUrl = (page: Page) =>
  page
    .frames()
    .find((f) => f.url().startsWith(PROXY_ORIGIN))
    ?.url() ?? "";

/** A room of `owner`'s, tied to Discord server `guildId`. */
async function guildRoom(token: string, guildId: string, name: string) {
  const room = await api<{ slug: string; name: string }>("/api/room-service/rooms/infrastructure", {
    method: "POST",
    token,
    body: JSON.stringify({ name: `${name} ${Date.now().toString(36)}` }),
  });
  await api(`/api/room-service/rooms/discord/${guildId}`, {
    method: "POST",
    token,
    body: JSON.stringify({ roomId: room.slug }),
  });
  return room;
}

describe("Discord Activity", () => {
  it("signs the Discord person in through the SDK and opens the room tied to the frame's server", async () => {
    const owner = await madeAccount("Guild Owner");
    const guildId = snowflake();
    const room = await guildRoom(owner.token, guildId, "Guild room");
    const context = await discordBrowser(base(), DESKTOP);
    try {
      const { page, scopes } = await openInDiscord(context, activityUrl(guildId), stub());
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const frame = frameOf(page);
      await expect
        .poll(
          () =>
            frame
              .getByTestId("room-name")
              .textContent({ timeout: 1000 })
              .catch(() => null),
          {
            timeout: 30_000,
          },
        )
        .toBe(room.name);
      expect(new URL(frameUrl(page)).pathname).toBe(`/activity/rooms/${room.slug}`);
      // Signed in as the Discord person: a new account named after them.
      expect(await frame.getByTestId("header-nickname").first().textContent()).toMatch(
        /Discord Tester \d{4}/,
      );
      // The room's socket is live through the proxy, with the frame's session.
      await expect
        .poll(() => frame.getByTestId("room").getAttribute("data-status"), { timeout: 20_000 })
        .toBe("open");
      // The SDK went through Discord's steps in order and asked for identify and guilds.
      const rpc = await page.evaluate(() => (window as unknown as { rpc: string[] }).rpc);
      expect(rpc.slice(0, 3)).toEqual([`HANDSHAKE:${STUB_CLIENT_ID}`, "AUTHORIZE", "AUTHENTICATE"]);
      expect(scopes).toEqual([["identify", "guilds"]]);
      // AUTHENTICATE got Discord's access token, as the stand-in's token endpoint issued it.
      const token = await page.evaluate(
        () => (window as unknown as { authenticatedWith?: string }).authenticatedWith,
      );
      expect(token).toMatch(/^[0-9a-f-]{36}$/);
      // The session cookie is the frame's: SameSite=None and Secure, for Discord's frame only.
      const jar = await context.cookies(PROXY_ORIGIN);
      expect(jar.find((c) => c.name === "tt_session")).toMatchObject({
        sameSite: "None",
        secure: true,
        httpOnly: true,
      });
      expect(errors).toEqual([]);
      await frameShot(page, "discord-activity-room-1440");
    } finally {
      await context.close();
    }
  });

  it("lists the server's rooms when it has several, says so when it has none, and tells a refusal", async () => {
    const owner = await madeAccount("Two Rooms");
    const guildId = snowflake();
    for (const n of [1, 2]) await guildRoom(owner.token, guildId, `Server room ${n}`);

    const phone = await discordBrowser(base(), PHONE, "es-ES");
    try {
      const { page } = await openInDiscord(phone, activityUrl(guildId), stub());
      const list = frameOf(page).getByTestId("activity-rooms").locator("a");
      await expect.poll(() => list.count(), { timeout: 30_000 }).toBe(2);
      expect(await frameOf(page).locator("h1").textContent()).toBe("Hangout en Discord");
      await frameShot(page, "discord-activity-rooms-390");
      await list.first().click();
      await expect
        .poll(
          () =>
            frameOf(page)
              .getByTestId("room-name")
              .textContent({ timeout: 1000 })
              .catch(() => null),
          {
            timeout: 20_000,
          },
        )
        .toMatch(/^Server room/);
      expect(frameUrl(page)).toContain("/activity/rooms/");
    } finally {
      await phone.close();
    }

    const desktop = await discordBrowser(base(), DESKTOP);
    try {
      const lonely = await openInDiscord(desktop, activityUrl(snowflake()), stub());
      await expect
        .poll(() => frameOf(lonely.page).getByTestId("activity-no-room").count(), {
          timeout: 30_000,
        })
        .toBe(1);
      await frameShot(lonely.page, "discord-activity-no-room-1440");
      await lonely.page.close();

      // The person closes Discord's authorize dialog: nothing is signed in, the page says so.
      const refused = await openInDiscord(desktop, activityUrl(guildId), stub(), async () => ({
        code: null,
      }));
      await expect
        .poll(() => frameOf(refused.page).getByTestId("activity-failed").textContent(), {
          timeout: 30_000,
        })
        .toContain("You didn't allow Hangout in Discord");
    } finally {
      await desktop.close();
    }
  });

  it("only the Activity may be framed, and only by Discord", async () => {
    const context = await discordBrowser(base(), DESKTOP);
    try {
      // Chromium's words when a page's frame-ancestors refuses the site framing it.
      const refusal = (directive: string) =>
        context.waitForEvent("console", (m) => m.text().includes(`frame-ancestors ${directive}`));
      // Another site framing the Activity: refused, nothing of ours renders there.
      await context.route("https://evil.example/**", (route) =>
        route.fulfill({
          contentType: "text/html",
          body: `<iframe id="activity" src="${activityUrl(snowflake())}"></iframe>`,
        }),
      );
      const evil = await context.newPage();
      const evilRefused = refusal("https://discord.com");
      await evil.goto("https://evil.example/");
      expect((await evilRefused).text()).toContain("*.discordsays.com");
      expect(await frameOf(evil).getByTestId("activity").count()).toBe(0);
      // Discord framing any other page (the room list): refused too.
      const discordRefused = refusal("'none'");
      const { page } = await openInDiscord(context, `${PROXY_ORIGIN}/rooms`, stub());
      expect((await discordRefused).text()).toContain(`Framing '${PROXY_ORIGIN}/'`);
      expect(await frameOf(page).locator("main").count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, madeAccount, shot, useBrowser } from "./browser";
import { STUB_CLIENT_ID } from "./oauth-stub";

// Issue 16, the Discord Activity in Debian Chromium. Discord runs an Activity in an iframe and
// speaks to it by postMessage (the Embedded App SDK's RPC). Here a stand-in Discord client page,
// served at https://discord.com by the browser's request routing (nothing leaves the machine),
// frames /activity and answers the SDK as Discord does: the handshake with READY, AUTHORIZE with
// a code from the OAuth stand-in (e2e/oauth-stub.ts), AUTHENTICATE with the user. The code is
// traded by our server at the stand-in's token endpoint (the fetch boundary), and the frame ends
// in the guild's room, signed in.
const base = () => inject("baseURL");
const getBrowser = useBrowser();
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

const snowflake = () => String(1e17 + Math.floor(Math.random() * 1e16));

/** The stand-in Discord client: frames `src` and answers the SDK's commands. */
const clientPage = (src: string) => `<!doctype html>
<html><head><title>Discord (test stand-in)</title>
<style>html,body{margin:0;height:100%;background:#313338}iframe{border:0;width:100%;height:100%}</style>
</head><body><iframe id="activity" src="${src}" allow="autoplay"></iframe>
<script>
const frame = document.getElementById("activity");
window.rpc = [];
const reply = (msg) => frame.contentWindow.postMessage(msg, "*");
window.addEventListener("message", async (e) => {
  if (e.source !== frame.contentWindow || !Array.isArray(e.data)) return;
  const [op, p] = e.data;
  window.rpc.push(op === 0 ? "HANDSHAKE:" + p.client_id : p && p.cmd);
  if (op === 0)
    return reply([1, { cmd: "DISPATCH", evt: "READY", nonce: null,
      data: { v: 1, config: { api_endpoint: "//discord.com/api", environment: "production" } } }]);
  if (op !== 1) return;
  if (p.cmd === "AUTHORIZE") {
    const answer = await window.discordAuthorize(p.args);
    if (!answer.code)
      return reply([1, { cmd: p.cmd, evt: "ERROR", nonce: p.nonce, data: { code: 5000, message: "denied" } }]);
    return reply([1, { cmd: p.cmd, evt: null, nonce: p.nonce, data: { code: answer.code } }]);
  }
  if (p.cmd === "AUTHENTICATE") {
    window.authenticatedWith = p.args.access_token;
    return reply([1, { cmd: p.cmd, evt: null, nonce: p.nonce, data: {
      access_token: p.args.access_token,
      user: { username: "tester", discriminator: "0", id: "1", public_flags: 0 },
      scopes: ["identify", "guilds"],
      expires: new Date(Date.now() + 6e5).toISOString(),
      application: { description: "", id: "${STUB_CLIENT_ID}", name: "Hangout" } } }]);
  }
  reply([1, { cmd: p.cmd, evt: "ERROR", nonce: p.nonce, data: { code: 4002, message: "not in this stand-in" } }]);
});
</script></body></html>`;

/** What Discord adds to an Activity's URL when it opens it. */
const activityUrl = (guildId: string | null) => {
  const q = new URLSearchParams({
    frame_id: crypto.randomUUID(),
    instance_id: `i-${crypto.randomUUID()}`,
    platform: "desktop",
    channel_id: snowflake(),
  });
  if (guildId) q.set("guild_id", guildId);
  return `${base()}/activity?${q}`;
};

/**
 * A page on the stand-in Discord client framing `src`. `authorize` answers the SDK's AUTHORIZE
 * (by default: a fresh code from the OAuth stand-in, as Discord's client gets one).
 */
async function inDiscord(
  context: BrowserContext,
  src: string,
  authorize?: () => Promise<{ code: string | null }>,
): Promise<{ page: Page; scopes: string[][] }> {
  const scopes: string[][] = [];
  await context.route("https://discord.com/**", (route) =>
    route.fulfill({ contentType: "text/html", body: clientPage(src) }),
  );
  const page = await context.newPage();
  await page.exposeFunction(
    "discordAuthorize",
    async (args: { client_id: string; scope: string[] }) => {
      scopes.push(args.scope);
      if (authorize) return authorize();
      const res = await fetch(`${inject("oauthStubURL")}/test/activity-authorize`, {
        method: "POST",
        body: JSON.stringify({ client_id: args.client_id, scope: args.scope }),
      });
      return (await res.json()) as { code: string };
    },
  );
  await page.goto(`https://discord.com/activities/${snowflake()}`);
  return { page, scopes };
}

const frameOf = (page: Page) => page.frameLocator("#activity");
const appFrame = (page: Page) => page.frames().find((f) => f.url().startsWith(base()));

describe("Discord Activity", () => {
  it("signs the Discord person in through the SDK and opens the room tied to the frame's server", async () => {
    const owner = await madeAccount("Guild Owner");
    const guildId = snowflake();
    const room = await api<{ slug: string; name: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: owner.token,
        body: JSON.stringify({ name: `Guild room ${Date.now().toString(36)}` }),
      },
    );
    await api(`/api/room-service/rooms/discord/${guildId}`, {
      method: "POST",
      token: owner.token,
      body: JSON.stringify({ roomId: room.slug }),
    });

    const context = await getBrowser().newContext({ viewport: DESKTOP });
    const { page, scopes } = await inDiscord(context, activityUrl(guildId));
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const frame = frameOf(page);
    await expect
      .poll(
        () =>
          frame
            .getByTestId("room-name")
            .textContent()
            .catch(() => null),
        {
          timeout: 20_000,
        },
      )
      .toBe(room.name);
    expect(new URL(appFrame(page)!.url()).pathname).toBe(`/activity/rooms/${room.slug}`);
    // Signed in as the Discord person (a new account made from their Discord name).
    expect(await frame.getByTestId("header-nickname").first().textContent()).toMatch(
      /Discord Tester \d{4}/,
    );
    await expect
      .poll(() => frame.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    // The SDK went through Discord's steps in order and asked for identify and guilds.
    const rpc = await page.evaluate(() => (window as unknown as { rpc: string[] }).rpc);
    expect(rpc.slice(0, 3)).toEqual([`HANDSHAKE:${STUB_CLIENT_ID}`, "AUTHORIZE", "AUTHENTICATE"]);
    expect(scopes).toEqual([["identify", "guilds"]]);
    // authenticate got Discord's access token (from the stand-in's token endpoint).
    const token = await page.evaluate(
      () => (window as unknown as { authenticatedWith?: string }).authenticatedWith,
    );
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(errors).toEqual([]);
    await shot(page, "discord-activity-room-1440");

    // The person's ordinary browser session is not touched: the frame's session lives in
    // Discord's partition only, so the same browser on our own site is still signed out.
    const own = await context.newPage();
    await own.goto(`${base()}/`);
    expect(await own.getByTestId("header-guest").count()).toBeGreaterThan(0);
    await context.close();
  });

  it("lists the server's rooms when it has several, says so when it has none, and refuses a denied authorize", async () => {
    const owner = await madeAccount("Two Rooms");
    const guildId = snowflake();
    for (const n of [1, 2]) {
      const r = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
        method: "POST",
        token: owner.token,
        body: JSON.stringify({ name: `Server room ${n} ${Date.now().toString(36)}` }),
      });
      await api(`/api/room-service/rooms/discord/${guildId}`, {
        method: "POST",
        token: owner.token,
        body: JSON.stringify({ roomId: r.slug }),
      });
    }
    const phone = await getBrowser().newContext({ viewport: PHONE, locale: "es-ES" });
    const several = await inDiscord(phone, activityUrl(guildId));
    const list = frameOf(several.page).getByTestId("activity-rooms").locator("a");
    await expect.poll(() => list.count(), { timeout: 20_000 }).toBe(2);
    await shot(several.page, "discord-activity-rooms-390");
    await Promise.all([
      several.page.waitForURL(() =>
        (appFrame(several.page)?.url() ?? "").includes("/activity/rooms/"),
      ),
      list.first().click(),
    ]);
    await expect
      .poll(() =>
        frameOf(several.page)
          .getByTestId("room-name")
          .textContent()
          .catch(() => null),
      )
      .toMatch(/^Server room/);
    await phone.close();

    const lonely = await getBrowser().newContext({ viewport: DESKTOP });
    const none = await inDiscord(lonely, activityUrl(snowflake()));
    await expect
      .poll(() => frameOf(none.page).getByTestId("activity-no-room").count(), { timeout: 20_000 })
      .toBe(1);
    await shot(none.page, "discord-activity-no-room-1440");
    await lonely.close();

    const refused = await getBrowser().newContext({ viewport: DESKTOP });
    const denied = await inDiscord(refused, activityUrl(guildId), async () => ({ code: null }));
    await expect
      .poll(() => frameOf(denied.page).getByTestId("activity-failed").textContent(), {
        timeout: 20_000,
      })
      .toContain("You didn't allow Hangout in Discord");
    await refused.close();
  });

  it("only the Activity may be framed, and only by Discord", async () => {
    const context = await getBrowser().newContext({ viewport: DESKTOP });
    // Chromium's word when a page's frame-ancestors refuses the site framing it.
    const refusal = (page: Page) =>
      page.waitForEvent("console", (m) => /frame-ancestors/.test(m.text()));
    // Another site framing the Activity: refused, nothing of ours renders there.
    await context.route("https://evil.example/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<iframe id="activity" src="${activityUrl(snowflake())}"></iframe>`,
      }),
    );
    const evil = await context.newPage();
    const evilRefused = refusal(evil);
    await evil.goto("https://evil.example/");
    expect((await evilRefused).text()).toContain("frame-ancestors https://discord.com");
    expect(await frameOf(evil).getByTestId("activity").count()).toBe(0);
    // Discord framing any other page (here the room list): refused too.
    await context.route("https://discord.com/**", (route) =>
      route.fulfill({ contentType: "text/html", body: clientPage(`${base()}/rooms`) }),
    );
    const page = await context.newPage();
    const discordRefused = refusal(page);
    await page.goto("https://discord.com/activities/elsewhere");
    expect((await discordRefused).text()).toContain("frame-ancestors 'none'");
    expect(await frameOf(page).locator("main").count()).toBe(0);
    await context.close();
  });
});

import { createECDH, randomBytes } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, madeAccount, shot, tokenFor, useBrowser } from "./browser";

// Issue 14, the social pages in Debian Chromium: follow a DJ, become friends, block, the
// notification bell, and web push through a service worker.
const base = () => inject("baseURL");
const getBrowser = useBrowser();

const SAM = "00000000-0000-4000-8000-000000000003";
const LOU = "00000000-0000-4000-8000-000000000004";
const KIM = "00000000-0000-4000-8000-000000000005";
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

async function signedIn(email: string, to: string, viewport = DESKTOP) {
  const context = await getBrowser().newContext({ viewport });
  const page = await logIn(context, email, to);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { context, page, errors };
}

/** The same page at phone width and in Spanish, for a person to look at. */
async function phoneAndSpanish(context: BrowserContext, path: string, name: string) {
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`${base()}${path}${path.includes("?") ? "&" : "?"}lang=es`);
  await page.waitForLoadState("networkidle");
  await shot(page, `social-${name}-390-es`);
  await page.goto(`${base()}${path}${path.includes("?") ? "&" : "?"}lang=en`);
  await page.close();
}

/** A new account whose e-mail is verified (made by the admin); its address. */
const verifiedAccount = async (nickname: string) => (await madeAccount(nickname)).email;

const fanCount = async (page: Page) => Number(await page.getByTestId("fan-count").textContent());

describe("the social pages", () => {
  it("(a) lou follows dj.sam on his profile: the count goes up and stays, sam is in lou's following", async () => {
    const { context, page, errors } = await signedIn("lou@hangout.local", `/profile/${SAM}`);
    const before = await fanCount(page);
    // A refused follow rolls back visibly, with the server's reason.
    const refusal = "You follow 5000 DJs, the most one account can follow.";
    await page.route("**/api/social-service/dj-fans", (route) =>
      route.fulfill({ status: 409, json: { message: refusal } }),
    );
    await page.getByTestId("follow").click();
    await page.getByText(`Couldn't follow DJ Sam: ${refusal}`).waitFor();
    expect(await fanCount(page)).toBe(before);
    await page.getByTestId("follow").waitFor();
    await page.unroute("**/api/social-service/dj-fans");
    await page.getByTestId("follow").click();
    // Optimistic: at once, before the server answers.
    await expect.poll(() => fanCount(page)).toBe(before + 1);
    await page.getByTestId("unfollow").waitFor();
    await expect
      .poll(() => page.getByTestId("fans-list").getByText("Lou Listener").count())
      .toBe(1);
    await page.reload();
    expect(await fanCount(page)).toBe(before + 1);
    // "Friends" sits in the music row without wrapping it at 1440 px.
    const rooms = await page.getByTestId("nav-rooms").boundingBox();
    const friends = await page.getByTestId("nav-friends").boundingBox();
    expect(friends && rooms && Math.abs(friends.y - rooms.y)).toBe(0);
    await page.getByTestId("unfollow").waitFor();
    await shot(page, "social-profile-sam-1440");
    await phoneAndSpanish(context, `/profile/${SAM}`, "profile-sam");

    // Lou's own profile: counts and lists, no follow or block buttons; sam in "following".
    await page.goto(`${base()}/profile/${LOU}`);
    await page.getByTestId("following-list").getByText("DJ Sam").waitFor();
    expect(await page.getByTestId("follow").count()).toBe(0);
    expect(await page.getByTestId("block").count()).toBe(0);
    expect(await page.getByTestId("following-count").textContent()).toBe("1");
    await page.goto(`${base()}/profile`);
    await page.getByTestId("following-list").getByText("DJ Sam").waitFor();
    await shot(page, "social-own-profile-1440");
    await phoneAndSpanish(context, "/profile", "own-profile");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("(b) lou invites kim, kim accepts on /friends, and each sees the other as a friend", async () => {
    const lou = await signedIn("lou@hangout.local", `/profile/${KIM}`);
    await lou.page.getByTestId("add-friend").click();
    await lou.page.getByTestId("cancel-invitation").waitFor();
    await lou.page.goto(`${base()}/friends`);
    await lou.page.getByTestId("outgoing").getByText("Kim Crate").waitFor();

    const kim = await signedIn("kim@hangout.local", "/friends");
    await kim.page.getByTestId("incoming").getByText("Lou Listener").waitFor();
    await shot(kim.page, "social-friends-invited-1440");
    await kim.page.getByTestId("accept-invitation").click();
    await kim.page.getByTestId("friends").getByText("Lou Listener").waitFor();
    await expect
      .poll(() => kim.page.getByTestId("incoming").getByText("Lou Listener").count())
      .toBe(0);

    await lou.page.reload();
    await lou.page.getByTestId("friends").getByText("Kim Crate").waitFor();
    expect(await lou.page.getByTestId("outgoing").getByText("Kim Crate").count()).toBe(0);

    // Find people by nickname from the friends page (the new GET /people).
    await lou.page.getByTestId("find-people").fill("dj s");
    await lou.page.getByTestId("find-results").getByText("DJ Sam").waitFor();
    // Contacts matching: pasted addresses, matched against verified e-mails (only hashes kept).
    // Ana signs up and verifies her address through the real routes; lou has it in her book.
    const ana = await verifiedAccount("Ana Contact");
    await lou.page
      .getByTestId("contacts-input")
      .fill(`${ana.toUpperCase()}, nobody@example.com\nnot an address`);
    await lou.page.getByRole("button", { name: "Find my contacts (2)" }).click();
    const matches = lou.page.getByTestId("contact-matches");
    await matches.getByText("Ana Contact").waitFor();
    expect(await matches.getByTestId("person").count()).toBe(1);
    await shot(lou.page, "social-friends-1440");
    await phoneAndSpanish(lou.context, "/friends", "friends");

    // Kim's profile on lou's side says Friends.
    await lou.page.goto(`${base()}/profile/${KIM}`);
    await lou.page.getByTestId("friends-menu").waitFor();
    expect([...lou.errors, ...kim.errors]).toEqual([]);
    await kim.context.close();
    await lou.context.close();
  });

  it("(c) lou blocks kim from her profile, after a confirm saying what a block does; kim leaves lou's lists", async () => {
    const kimToken = await tokenFor("kim@hangout.local");
    // Kim follows lou first, so the block has a list to take her out of.
    await api("/api/social-service/dj-fans", {
      method: "POST",
      token: kimToken,
      body: JSON.stringify({ djUuid: LOU }),
    });
    const { context, page, errors } = await signedIn("lou@hangout.local", `/profile/${LOU}`);
    await page.getByTestId("fans-list").getByText("Kim Crate").waitFor();
    // The profile's links to the friends page and the notification settings.
    await page.goto(`${base()}/profile`);
    await page.getByTestId("profile-notification-settings").waitFor();
    await shot(page, "social-own-profile-links-1440");
    await page.goto(`${base()}/profile/${KIM}`);
    await page.getByTestId("block").click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByText("They are not told.", { exact: false }).waitFor();
    await shot(page, "social-block-confirm-1440");
    await dialog.getByTestId("confirm").click();
    await page.getByTestId("unblock").waitFor();
    expect(await page.getByTestId("follow").count()).toBe(0);

    await page.goto(`${base()}/friends`);
    await page.getByTestId("friends").waitFor();
    expect(await page.getByTestId("friends").getByText("Kim Crate").count()).toBe(0);
    await page.getByTestId("find-people").fill("kim");
    await page.getByText("Nobody by that name.").waitFor();
    await page.goto(`${base()}/profile/${LOU}`);
    await page.getByTestId("fans-list").waitFor();
    expect(await page.getByTestId("fans-list").getByText("Kim Crate").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("(d) the bell shows a notification sent through the API; opening it marks it read", async () => {
    const admin = await tokenFor("admin@hangout.local", "admin-password");
    const { context, page, errors } = await signedIn("lou@hangout.local", "/rooms");
    // Whatever other files left in lou's centre is read first, so the count is this one's.
    await api("/api/social-service/notifications/read", {
      method: "POST",
      token: await tokenFor("lou@hangout.local"),
      body: JSON.stringify({ all: true }),
    });
    await api("/api/social-service/mobileNotification/user/admin", {
      method: "POST",
      token: admin,
      body: JSON.stringify({
        userUuid: LOU,
        title: "DJ Sam is DJing",
        body: "in the Lounge",
        data: { profileUuid: SAM },
      }),
    });
    // The queue writes the row (behind whatever earlier files queued for lou); then the bell
    // reads it on focus, on open, or every 30 s, and counts at least this one.
    const louToken = await tokenFor("lou@hangout.local");
    await expect
      .poll(
        async () =>
          (
            await api<{ items: { body: string | null }[] }>(
              "/api/social-service/notifications?take=50",
              { token: louToken },
            )
          ).items.some((n) => n.body === "in the Lounge"),
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    const bellCount = async () =>
      Number(
        (await page
          .getByTestId("bell-count")
          .textContent({ timeout: 500 })
          .catch(() => null)) ?? 0,
      );
    let shown = 0;
    await expect
      .poll(
        async () => {
          await page.evaluate(() => window.dispatchEvent(new Event("focus")));
          shown = await bellCount();
          return shown;
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBeGreaterThanOrEqual(1);
    await page.getByTestId("bell").click();
    const item = page
      .getByTestId("bell-panel")
      .getByTestId("notification")
      .filter({ hasText: "in the Lounge" })
      .first();
    await item.getByText("DJ Sam is DJing").waitFor();
    expect(await item.getAttribute("data-unread")).toBe("true");
    await shot(page, "social-bell-1440");
    await item.click();
    await page.waitForURL((u) => u.pathname === `/profile/${SAM}`);
    // Opening it read it: one fewer unread than the bell showed.
    await expect.poll(bellCount).toBeLessThan(shown);
    await page.goto(`${base()}/notifications`);
    const row = page.getByTestId("notification").filter({ hasText: "in the Lounge" }).first();
    await row.getByText("DJ Sam is DJing").waitFor();
    expect(await row.getAttribute("data-unread")).toBeNull();
    await shot(page, "social-notifications-1440");
    await phoneAndSpanish(context, "/notifications", "notifications");

    // The bell at phone width, open.
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(`${base()}/rooms`);
    await phone.getByTestId("bell").click();
    await phone.getByTestId("bell-panel").waitFor();
    await shot(phone, "social-bell-390");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("(e) web push: permission after the click, the subscription reaches the server, the worker shows a push", async () => {
    // A browser key pair as a push service would hold it: Chromium can subscribe only
    // through Google's push service, which this machine cannot reach, so the page's
    // pushManager.subscribe answers with this subscription. Everything else is real: the
    // permission, the service worker, the POST to the API and the push delivered to it.
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const fake = {
      endpoint: `https://fcm.googleapis.com/fcm/send/e2e-${randomBytes(8).toString("hex")}`,
      expirationTime: null,
      keys: {
        p256dh: ecdh.getPublicKey().toString("base64url"),
        auth: randomBytes(16).toString("base64url"),
      },
    };
    const context = await getBrowser().newContext({ viewport: DESKTOP });
    await context.addInitScript((sub) => {
      const asked: unknown[] = [];
      (window as unknown as { __subscribeCalls: unknown[] }).__subscribeCalls = asked;
      PushManager.prototype.subscribe = async function (opts) {
        asked.push(opts?.applicationServerKey ?? null);
        return { ...sub, toJSON: () => sub, unsubscribe: async () => true } as never;
      };
    }, fake);
    const page = await logIn(context, "lou@hangout.local", "/settings/notifications");
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.getByTestId("push-status").waitFor();
    // Nothing asked before the click.
    expect(await page.evaluate(() => Notification.permission)).toBe("default");
    await shot(page, "social-settings-1440");
    await phoneAndSpanish(context, "/settings/notifications", "settings");

    // Settings: turn mentions off and quiet hours on, in the browser's time zone.
    await page.getByTestId("kind-mention").uncheck();
    await page.getByTestId("quiet-toggle").check();
    await page.getByTestId("quiet-start").fill("23:00");
    await page.getByTestId("quiet-end").fill("06:30");
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(await page.getByTestId("quiet-zone").inputValue()).toBe(zone);
    await page.getByTestId("settings-save").click();
    await page.getByText("Notification settings saved.").waitFor();
    await shot(page, "social-settings-quiet-1440");
    const saved = await api<{ disabledKinds: string[]; quietHours: unknown }>(
      "/api/social-service/notification-settings",
      { token: await tokenFor("lou@hangout.local") },
    );
    expect(saved.disabledKinds).toEqual(["mention"]);
    expect(saved.quietHours).toMatchObject({ start: 23 * 60, end: 6 * 60 + 30, timeZone: zone });
    await context.grantPermissions(["notifications"], { origin: base() });
    const [posted] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/web-notifications/subscription")),
      page.getByTestId("push-enable").click(),
    ]);
    expect(posted.status()).toBe(201);
    expect(await posted.json()).toMatchObject({ subscribed: true, endpoint: fake.endpoint });
    expect(JSON.parse(posted.request().postData() ?? "{}")).toEqual(fake);
    const keyAsked = await page.evaluate(
      () => (window as unknown as { __subscribeCalls: unknown[] }).__subscribeCalls,
    );
    const { publicKey } = await api<{ publicKey: string }>(
      "/api/social-service/web-notifications/vapid-public-key",
    );
    expect(keyAsked).toEqual([publicKey]);
    await page.getByTestId("push-disable").waitFor();

    // Deliver a push to our service worker through the DevTools protocol.
    const cdp = await context.newCDPSession(page);
    const regs: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => regs.push(...e.registrations));
    await cdp.send("ServiceWorker.enable");
    await expect
      .poll(() => regs.find((r) => !r.isDeleted && r.scopeURL === `${base()}/`))
      .toBeTruthy();
    const reg = regs.find((r) => !r.isDeleted && r.scopeURL === `${base()}/`)!;
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: base(),
      registrationId: reg.registrationId,
      data: JSON.stringify({
        uuid: "e2e-push-1",
        kind: "friend_invitation",
        title: "Kim wants to be friends",
        body: "Open Hangout to answer",
        data: {},
      }),
    });
    await expect
      .poll(() =>
        page.evaluate(async () => {
          const r = await navigator.serviceWorker.ready;
          return (await r.getNotifications()).map((n) => ({
            title: n.title,
            body: n.body,
            href: (n.data as { href?: string })?.href,
          }));
        }),
      )
      .toEqual([
        { title: "Kim wants to be friends", body: "Open Hangout to answer", href: "/friends" },
      ]);
    await shot(page, "social-settings-push-on-1440");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("(f) in a room, any signed-in listener's menu on another has View profile and Block", async () => {
    const samToken = await tokenFor("dj.sam@hangout.local");
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: samToken,
      body: JSON.stringify({ name: `Social ${Date.now().toString(36)}`, design: "CLUB" }),
    });
    const path = `/rooms/${room.slug}`;
    const statusOf = (page: Page) =>
      page
        .getByTestId("room")
        .getAttribute("data-status", { timeout: 2000 })
        .catch(() => null);
    const sam = await signedIn("dj.sam@hangout.local", path);
    await expect.poll(() => statusOf(sam.page), { timeout: 15_000 }).toBe("open");
    const lou = await signedIn("lou@hangout.local", path);
    await expect.poll(() => statusOf(lou.page), { timeout: 15_000 }).toBe("open");
    // Lou is no moderator here: her menu on Sam has the profile and Block only.
    const samForLou = lou.page.locator(`[data-testid="person-menu-trigger"][data-user="${SAM}"]`);
    await expect.poll(() => samForLou.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await samForLou.first().click();
    const menu = lou.page.getByTestId("mod-menu");
    await menu.getByTestId("menu-view-profile").waitFor();
    expect(await menu.getByTestId("mod-kick").count()).toBe(0);
    expect(await menu.getByTestId("mod-ban").count()).toBe(0);
    await shot(lou.page, "social-room-menu-1440");
    await menu.getByTestId("menu-block").click();
    await menu.getByText("They are not told.", { exact: false }).waitFor();
    await shot(lou.page, "social-room-block-confirm-1440");
    await menu.getByTestId("block-confirm").click();
    await lou.page.getByText("DJ Sam is blocked.").waitFor();
    const blocked = await api<{ blocked: boolean }>(`/api/social-service/blocked-users/${SAM}`, {
      token: await tokenFor("lou@hangout.local"),
    });
    expect(blocked.blocked).toBe(true);
    // View profile goes to his page, which now offers Unblock.
    await samForLou.first().click();
    await Promise.all([
      lou.page.waitForURL((u) => u.pathname === `/profile/${SAM}`),
      lou.page.getByTestId("menu-view-profile").click(),
    ]);
    await lou.page.getByTestId("unblock").waitFor();
    expect([...sam.errors, ...lou.errors]).toEqual([]);
    await sam.context.close();
    await lou.context.close();
  });
});

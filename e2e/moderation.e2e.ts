import type { BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// Platform moderation in the browser (issue 15): the moderator opens Kim's profile, goes to
// her moderation page and bans her with a reason through the confirmation; Kim, who had a
// room open, sees she was removed and why; her next page load is the banned page; the
// moderator unbans her. The admin's audit and deactivation pages render. A badge the
// moderator gives shows in Kim's open room at once.
const MOD = "mod@hangout.local";
const MOD_PASSWORD = "moderator-password";
const ADMIN = "admin@hangout.local";
const KIM = "kim@hangout.local";
const KIM_UUID = "00000000-0000-4000-8000-000000000005";
const REASON = "Spamming links in three rooms";

const getBrowser = useBrowser();
const base = () => inject("baseURL");

/** The page in Spanish from its next load (the language cookie the switcher sets). */
const spanish = (ctx: BrowserContext) =>
  ctx.addCookies([{ name: "tt-locale", value: "es", url: base() }]);

const visible = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .first()
    .isVisible()
    .catch(() => false);

// Whatever happens above, Kim leaves this file unbanned: later files sign in as her.
afterAll(async () => {
  const token = await tokenFor(MOD, MOD_PASSWORD);
  await api("/api/user-service/users/unban", {
    method: "POST",
    token,
    body: JSON.stringify({ userUuid: KIM_UUID }),
  }).catch(() => undefined);
});

describe("platform moderation pages", () => {
  it("the moderator gives Kim VERIFIED while her room is open: her room and Sam's show the badge without a reload", async () => {
    const errors: string[] = [];
    const samToken = await tokenFor("dj.sam@hangout.local");
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: samToken,
      body: JSON.stringify({ name: `Badges ${Date.now().toString(36)}`, design: "CLUB" }),
    });
    const roomPath = `/rooms/${room.slug}`;
    const open = async (email: string, password?: string) => {
      const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
      const page = await logIn(ctx, email, roomPath, password);
      page.on("pageerror", (e) => errors.push(`${email}: ${e}`));
      await expect
        .poll(() => page.getByTestId("room").getAttribute("data-status"), { timeout: 20_000 })
        .toBe("open");
      return { ctx, page };
    };
    const kim = await open(KIM);
    const sam = await open("dj.sam@hangout.local");
    const kimOnFloor = (page: Page) =>
      page.locator(`[data-testid="floor-user"][data-user="${KIM_UUID}"]`);
    await expect.poll(() => kimOnFloor(sam.page).count(), { timeout: 15_000 }).toBe(1);
    expect(await kimOnFloor(sam.page).getByTestId("person-badges").count()).toBe(0);

    const modCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const mod = await logIn(modCtx, MOD, `/moderation/${KIM_UUID}`, MOD_PASSWORD);
    mod.on("pageerror", (e) => errors.push(`mod: ${e}`));
    await mod.getByTestId("mod-badges").click();
    const dialog = mod.getByTestId("action-dialog");
    await dialog.locator('input[name="badge"][value="VERIFIED"]').check();
    await dialog.getByTestId("action-confirm").click();

    // Both open rooms draw it on Kim's avatar, from the room's updatedUserProfile frame.
    for (const page of [sam.page, kim.page])
      await expect
        .poll(
          () =>
            kimOnFloor(page)
              .getByTestId("person-badges")
              .getAttribute("data-badges")
              .catch(() => null),
          { timeout: 15_000 },
        )
        .toBe("VERIFIED");
    await shot(sam.page, "platform-badge-01-room-1440");
    await spanish(kim.ctx);
    await kim.page.setViewportSize({ width: 390, height: 844 });
    await kim.page.reload();
    await expect
      .poll(() => kimOnFloor(kim.page).getByTestId("person-badges").getAttribute("aria-label"), {
        timeout: 15_000,
      })
      .toBe("Insignias: Verificado");
    await shot(kim.page, "platform-badge-02-room-390-es");
    expect(errors).toEqual([]);
    // Kim leaves this test without badges, as the seed made her.
    await api("/api/user-service/users/change-badges-admin", {
      method: "POST",
      token: await tokenFor(MOD, MOD_PASSWORD),
      body: JSON.stringify({ userUuid: KIM_UUID, badges: [] }),
    });
    for (const c of [kim.ctx, sam.ctx, modCtx]) await c.close();
  });

  it("the moderator bans Kim from her profile with a reason; Kim sees why; the moderator unbans her", async () => {
    const errors: string[] = [];
    const samToken = await tokenFor("dj.sam@hangout.local");
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: samToken,
      body: JSON.stringify({ name: `Platform ${Date.now().toString(36)}`, design: "CLUB" }),
    });
    const roomPath = `/rooms/${room.slug}`;

    const kimCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const kim = await logIn(kimCtx, KIM, roomPath);
    kim.on("pageerror", (e) => errors.push(`kim: ${e}`));
    await expect
      .poll(() => kim.getByTestId("room").getAttribute("data-status"), { timeout: 20_000 })
      .toBe("open");

    const modCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const mod = await logIn(modCtx, MOD, `/profile/${KIM_UUID}`, MOD_PASSWORD);
    mod.on("pageerror", (e) => errors.push(`mod: ${e}`));
    await mod.getByTestId("moderate-link").click();
    await mod.waitForURL((u) => u.pathname === `/moderation/${KIM_UUID}`);
    await expect.poll(() => mod.getByTestId("mod-ban-state").textContent()).toBe("Not banned");
    // A moderator is offered only what the API lets them do: no deactivation (admins only).
    expect(await mod.getByTestId("mod-deactivate").count()).toBe(0);
    await shot(mod, "platform-mod-01-page-1440");

    // Ban: the dialog says what happens and will not send without a reason.
    await mod.getByTestId("mod-ban").click();
    const dialog = mod.getByTestId("action-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain("can't sign in or use hangout");
    await dialog.getByTestId("action-confirm").click();
    expect(await dialog.isVisible()).toBe(true);
    expect(
      await dialog
        .getByTestId("action-reason")
        .evaluate((el) => (el as HTMLTextAreaElement).validity.valid),
    ).toBe(false);
    await dialog.getByTestId("action-reason").fill(REASON);
    await shot(mod, "platform-mod-02-ban-dialog-1440");
    await dialog.getByTestId("action-confirm").click();
    await expect
      .poll(() => mod.getByTestId("toasts").textContent(), { timeout: 10_000 })
      .toContain("Kim Crate is banned.");
    await expect
      .poll(() => mod.getByTestId("mod-ban-state").textContent(), { timeout: 10_000 })
      .toContain("Banned for good");
    expect(await mod.getByTestId("mod-ban-state").textContent()).toContain(REASON);
    await expect
      .poll(() => mod.getByTestId("mod-history-row").first().textContent())
      .toContain("Banned");
    expect(await mod.getByTestId("mod-history-row").first().textContent()).toContain(REASON);
    await shot(mod, "platform-mod-03-banned-1440");

    // Kim's open room: removed, with the ban and the reason.
    await expect.poll(() => visible(kim, "room-kicked"), { timeout: 15_000 }).toBe(true);
    expect(await kim.getByTestId("room-face-title").textContent()).toBe("Your account was banned");
    expect(await kim.getByTestId("kick-reason-text").textContent()).toBe(REASON);
    await shot(kim, "platform-kim-01-room-removed-1440");

    // Her next page load: the banned page, in English and Spanish, desktop and phone.
    await kim.reload();
    await expect.poll(() => visible(kim, "banned-page")).toBe(true);
    expect(await kim.getByTestId("banned-reason").textContent()).toBe(REASON);
    expect(await kim.locator("h1").first().textContent()).toBe("Your account is banned");
    await shot(kim, "platform-kim-02-banned-page-1440");
    await kim.goto(`${base()}/crates`);
    await expect.poll(() => visible(kim, "banned-page")).toBe(true);
    await kim.setViewportSize({ width: 390, height: 844 });
    await shot(kim, "platform-kim-03-banned-page-390");
    await spanish(kimCtx);
    await kim.reload();
    await expect
      .poll(() => kim.locator("h1").first().textContent())
      .toBe("Tu cuenta está suspendida");
    expect(await kim.getByTestId("banned-reason").textContent()).toBe(REASON);
    await shot(kim, "platform-kim-04-banned-page-390-es");

    // The moderator's page on a phone and in Spanish; then the unban.
    await mod.setViewportSize({ width: 390, height: 844 });
    await shot(mod, "platform-mod-04-page-390");
    await spanish(modCtx);
    await mod.reload();
    await expect
      .poll(() => mod.getByTestId("mod-ban-state").textContent())
      .toContain("Suspendida para siempre");
    await shot(mod, "platform-mod-05-page-390-es");
    await mod.setViewportSize({ width: 1440, height: 900 });
    await shot(mod, "platform-mod-06-page-1440-es");
    await mod.getByTestId("mod-unban").click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await shot(mod, "platform-mod-07-unban-dialog-1440-es");
    await dialog.getByTestId("action-confirm").click();
    await expect
      .poll(() => mod.getByTestId("mod-ban-state").textContent(), { timeout: 10_000 })
      .toBe("Sin suspensión");
    expect(await mod.getByTestId("toasts").textContent()).toContain("ya no está suspendido");

    // Kim is no longer banned: her page loads (signed out: the ban ended her sessions).
    await kim.reload();
    expect(await visible(kim, "banned-page")).toBe(false);
    const again = await tokenFor(KIM);
    expect(again).toBeTruthy();

    // A platform kick: Kim is back in the room; the moderator kicks her with a reason; her
    // room says she was signed out and why, and offers to sign in again.
    await kim.setViewportSize({ width: 1440, height: 900 });
    const back = await logIn(kimCtx, KIM, roomPath);
    back.on("pageerror", (e) => errors.push(`kim: ${e}`));
    await expect
      .poll(() => back.getByTestId("room").getAttribute("data-status"), { timeout: 20_000 })
      .toBe("open");
    await mod.getByTestId("mod-kick").click();
    await dialog.getByTestId("action-reason").fill("Take a breather");
    await dialog.getByTestId("action-confirm").click();
    await expect.poll(() => visible(back, "room-kicked"), { timeout: 15_000 }).toBe(true);
    expect(await back.getByTestId("room-face-title").textContent()).toBe(
      "La moderación cerró tu sesión",
    );
    expect(await back.getByTestId("kick-reason-text").textContent()).toBe("Take a breather");
    await shot(back, "platform-kim-05-room-kicked-1440-es");
    await expect
      .poll(() => mod.getByTestId("mod-history-row").first().textContent(), { timeout: 10_000 })
      .toContain("Expulsado");
    expect(errors).toEqual([]);
    await kimCtx.close();
    await modCtx.close();
  });

  it("the admin's audit and deactivation pages render, the audit one even before the audit-service answers", async () => {
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const admin = await logIn(ctx, ADMIN, "/admin/audit", "admin-password");
    await expect
      .poll(
        async () =>
          (await visible(admin, "audit-unavailable")) || (await visible(admin, "audit-total")),
      )
      .toBe(true);
    expect(await admin.locator('a[href="/admin/audit"]').count()).toBeGreaterThan(0);
    await shot(admin, "platform-admin-01-audit-1440");
    // Kim asks to be deactivated; the admin sees the request and cancels it.
    await api("/api/user-service/users/request-deactivate", {
      method: "POST",
      token: await tokenFor(KIM),
    });
    await admin.goto(`${base()}/admin/deactivations`);
    await expect
      .poll(() => admin.locator("h1").first().textContent())
      .toBe("Deactivation requests");
    const row = admin.getByTestId("deactivation-row").filter({ hasText: "Kim Crate" });
    expect(await row.count()).toBe(1);
    await shot(admin, "platform-admin-02-deactivations-1440");
    await row.getByTestId("deact-cancel").click();
    const dialog = admin.getByTestId("action-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByTestId("action-confirm").click();
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(0);
    expect(await admin.getByTestId("toasts").textContent()).toContain("deactivation request");
    await admin.setViewportSize({ width: 390, height: 844 });
    await spanish(ctx);
    await admin.goto(`${base()}/admin/audit`);
    await expect.poll(() => admin.locator("h1").first().textContent()).toBe("Auditoría");
    await shot(admin, "platform-admin-03-audit-390-es");
    await ctx.close();
  });

  // The admin filters by Kim's nickname and topic moderation.globalBan and sees the ban.
  it("the audit page lists the ban", async () => {
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const admin = await logIn(ctx, ADMIN, `/admin/audit`, "admin-password");
    await admin.goto(
      `${base()}/admin/audit?user=${encodeURIComponent("Kim Crate")}&topic=moderation.globalBan`,
    );
    const row = admin.getByTestId("audit-row").first();
    await expect
      .poll(() => row.textContent(), { timeout: 10_000 })
      .toContain("moderation.globalBan");
    await row.getByRole("button").click();
    expect(await admin.locator("pre").first().textContent()).toContain(REASON);
    await shot(admin, "platform-admin-04-audit-ban-1440");
    await ctx.close();
  });
});

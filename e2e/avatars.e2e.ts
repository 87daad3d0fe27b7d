import { describe, expect, inject, it } from "vitest";
import { api, logIn, PNG_1x1, shot, tokenFor, useBrowser } from "./browser";

// Avatars (issue 6): Kim picks an avatar with one click and sees it on her profile and on
// the floor of a room; locked avatars say how to unlock them; an admin creates one with art.
// Uses the demo avatars of scripts/seed-avatars.mjs.
const KIM = "kim@hangout.local";
const ADMIN = { email: "admin@hangout.local", password: "admin-password" };
const getBrowser = useBrowser();

describe("avatars", () => {
  it("Kim wears an avatar and sees it on her profile and in a room", async () => {
    const token = await tokenFor(KIM);
    // Start bare, so the pick is what the test proves.
    await api("/api/user-service/users/profile", {
      method: "POST",
      token,
      body: JSON.stringify({ avatarId: null }),
    });
    const errors: string[] = [];
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(ctx, KIM, "/avatars");
    page.on("pageerror", (e) => errors.push(String(e)));

    // Locked ones are shown with how to unlock them; PRIVATE ones are not shown at all.
    await expect(page.getByTestId("avatar-locked-gold-eq").textContent()).resolves.toContain(
      "Subscribers only",
    );
    await expect(page.getByTestId("avatar-locked-server-synth").textContent()).resolves.toContain(
      "Link your Discord account",
    );
    expect(await page.getByTestId("avatar-option-disco-ball").count()).toBe(0);
    await expect(page.getByTestId("avatar-current").textContent()).resolves.toContain(
      "not wearing",
    );

    // One click wears it; the choice is marked and survives a reload.
    await page.getByTestId("avatar-option-night-cans").click();
    await expect
      .poll(() => page.getByTestId("avatar-option-night-cans").getAttribute("aria-pressed"))
      .toBe("true");
    await expect
      .poll(() => page.getByTestId("avatar-current").textContent())
      .toContain("Night Cans");
    await expect
      .poll(() => page.getByTestId("avatar-result").textContent())
      .toContain("Night Cans is now your avatar.");
    // Every art image on the page loaded (none fell back, none broke).
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>("img[data-avatar]")].every((i) => i.complete),
    );
    const broken = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLImageElement>("img[data-avatar]")]
        .filter((i) => i.naturalWidth === 0 || i.src.startsWith("data:"))
        .map((i) => i.dataset.avatar),
    );
    expect(broken).toEqual([]);
    await shot(page, "avatars-01-picker-1440");
    await page.reload();
    expect(await page.getByTestId("avatar-option-night-cans").getAttribute("aria-pressed")).toBe(
      "true",
    );
    expect(await page.getByTestId("avatar-option-vinyl-spin").getAttribute("aria-pressed")).toBe(
      "false",
    );

    // The profile shows it.
    await page.goto(`${inject("baseURL")}/profile`);
    expect(await page.getByTestId("profile-avatar").getAttribute("data-avatar-id")).toBe(
      "night-cans",
    );
    await shot(page, "avatars-02-profile-1440");

    // A room draws her with it.
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token,
      body: JSON.stringify({ name: `Avatar check ${Date.now().toString(36)}` }),
    });
    await page.goto(`${inject("baseURL")}/rooms/${room.slug}`);
    await expect
      .poll(() => page.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await expect
      .poll(() => page.locator('[data-testid="floor"] img[data-avatar="night-cans"]').count(), {
        timeout: 15_000,
      })
      .toBe(1);
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>(
        '[data-testid="floor"] img[data-avatar="night-cans"]',
      );
      return !!img && img.complete && img.naturalWidth > 0 && !img.src.startsWith("data:");
    });
    await shot(page, "avatars-03-room-1440");

    // Phone width: the picker still reads.
    const phone = await getBrowser().newContext({ viewport: { width: 390, height: 844 } });
    const small = await logIn(phone, KIM, "/avatars");
    await shot(small, "avatars-04-picker-390");
    await phone.close();
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("an admin creates an avatar with art, edits it and deletes it", async () => {
    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(ctx, ADMIN.email, "/admin/avatars", ADMIN.password);
    await shot(page, "avatars-05-admin-list-1440");
    await page.getByTestId("admin-avatar-new").click();
    await page.waitForURL(/\/admin\/avatars\/new$/);
    const slug = `e2e-${Date.now().toString(36)}`;
    await page.fill('input[name="slug"]', slug);
    await page.fill('input[name="name"]', "Purple Pixel");
    await page.fill('textarea[name="description"]', "One purple pixel, scaled with care.");
    await page.setInputFiles('input[name="file"]', {
      name: "pixel.png",
      mimeType: "image/png",
      buffer: PNG_1x1,
    });
    await shot(page, "avatars-06-admin-new-1440");
    await Promise.all([
      page.waitForURL((u) => u.pathname === `/admin/avatars/${slug}`),
      page.locator('main form button[type="submit"]').click(),
    ]);
    expect(await page.getByTestId("admin-avatar-name").textContent()).toBe("Purple Pixel");
    // The uploaded art is served as a PNG thumbnail.
    const art = await fetch(
      `${inject("baseURL")}/api/merch-service/avatars/${slug}/image?size=128`,
    );
    expect(art.headers.get("content-type")).toBe("image/png");

    await page.fill('input[name="name"]', "Purple Pixel II");
    await page.locator('button[name="intent"][value="save"]').click();
    await expect
      .poll(() => page.getByTestId("admin-avatar-name").textContent())
      .toBe("Purple Pixel II");
    await shot(page, "avatars-07-admin-edit-1440");

    await Promise.all([
      page.waitForURL((u) => u.pathname === "/admin/avatars"),
      page.getByTestId("admin-avatar-delete").click(),
    ]);
    const status = (await fetch(`${inject("baseURL")}/api/merch-service/avatars/${slug}`)).status;
    expect(status).toBe(404);
    await ctx.close();
  });
});

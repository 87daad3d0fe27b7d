import { describe, expect, inject, it } from "vitest";
import { PNG_1x1, shot, useBrowser } from "./browser";

// The journey, as a new user takes it in Debian Chromium: sign up, read the code
// from the dev outbox, verify, log out, log in, change the profile picture.
const base = () => inject("baseURL");

const getBrowser = useBrowser();

describe("a new user's account journey", () => {
  it("signs up, verifies with the mailed code, logs out and in, and changes the profile picture", async () => {
    const email = `e2e.${Date.now().toString(36)}@example.com`;
    const password = "a long enough password";
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    // Sign up: the account is made, the user is signed in and asked for the code.
    await page.goto(`${base()}/signup`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await page.fill('input[name="nickname"]', "E2E Listener");
    await Promise.all([
      page.waitForURL(/\/verify-email/),
      page.locator('form button[type="submit"]').last().click(),
    ]);
    await expect(page.getByTestId("header-nickname").textContent()).resolves.toContain(
      "E2E Listener",
    );
    await shot(page, "1-verify-email");

    // The code arrives through the queue in the dev outbox page.
    const outbox = await context.newPage();
    let code: string | undefined;
    for (let i = 0; i < 40 && !code; i++) {
      await outbox.goto(`${base()}/dev/outbox?to=${encodeURIComponent(email)}`);
      const text =
        (await outbox
          .getByTestId("outbox-message")
          .first()
          .textContent({ timeout: 500 })
          .catch(() => null)) ?? "";
      code = text.match(/\b(\d{6})\b/)?.[1];
      if (!code) await outbox.waitForTimeout(250);
    }
    expect(code, "a verification code in the dev outbox").toMatch(/^\d{6}$/);
    await shot(outbox, "2-dev-outbox");
    await outbox.close();

    // Verify.
    await page.fill('input[name="code"]', code!);
    await page.getByRole("button", { name: "Verify e-mail" }).click();
    await page.getByText("Your e-mail address is verified.").waitFor();
    await shot(page, "3-verified");

    // Log out: the header shows a guest.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByTestId("header-guest").waitFor();

    // A wrong password shows the server's message; the right one signs in.
    await page.goto(`${base()}/login`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', "not my password");
    await page.locator('main form button[type="submit"]').click();
    await page.getByText("Incorrect email or password.").waitFor();
    await page.fill('input[name="password"]', password);
    await page.locator('main form button[type="submit"]').click();
    await page.getByTestId("header-nickname").waitFor();
    await shot(page, "4-logged-in");

    // Change the profile picture: the upload finishes and the header shows the new image.
    await page.goto(`${base()}/profile/edit`);
    await page
      .locator("#upload-profilePicture")
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: PNG_1x1 });
    await page.getByText("Uploaded.").first().waitFor();
    const avatar = page.locator("header img").first();
    await expect
      .poll(() => avatar.getAttribute("src"))
      .toMatch(/^\/api\/user-service\/users\/images\/[0-9a-f-]{36}$/);
    await expect
      .poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(1);
    await shot(page, "5-profile-picture");

    // The server agrees: the session's profile points at the uploaded picture and is verified.
    // The session cookie is httpOnly: page scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain("tt_session");
    expect((await context.cookies()).find((c) => c.name === "tt_session")?.httpOnly).toBe(true);
    const login = await fetch(`${base()}/api/user-service/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    const me = (await login.json()) as {
      token: string;
      user: { emailVerified: boolean; profilePicture: string };
    };
    expect(me.user.emailVerified).toBe(true);
    expect(me.user.profilePicture).toBe(await avatar.getAttribute("src"));

    // Log out everywhere: this browser is signed out, and the API session above is ended too.
    const other = me.token;
    await page.goto(`${base()}/profile`);
    await shot(page, "5b-profile-logout-everywhere");
    await page.getByRole("button", { name: "Log out everywhere" }).click();
    await page.getByTestId("header-guest").waitFor();
    const ended = await fetch(`${base()}/api/user-service/auth/session`, {
      headers: { Authorization: `Bearer ${other}` },
    });
    expect(ended.status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the pages in Spanish when asked, and keeps the choice", async () => {
    const context = await getBrowser().newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base()}/login?lang=es`);
    expect(await page.getAttribute("html", "lang")).toBe("es");
    await page.goto(`${base()}/signup`);
    expect(await page.getAttribute("html", "lang")).toBe("es");
    await shot(page, "6-signup-es-phone");
    await context.close();
  });
});

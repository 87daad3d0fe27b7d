import { describe, expect, inject, it } from "vitest";
import { logIn, outboxCode, shot, useBrowser } from "./browser";

// Issue 15's phone journeys in Debian Chromium: sign in with a texted code on a phone-sized
// screen (the account is made on the way), and an admin whitelisting an app-review number
// that then signs in with its fixed code.
const base = () => inject("baseURL");
const getBrowser = useBrowser();

/** A Spanish mobile number no other run uses (every +34 6xx number is a mobile). */
const freshNumber = () => `+3461${String(Date.now() % 1e7).padStart(7, "0")}`;

describe("phone sign-in", () => {
  it("texts a code by WhatsApp, signs a new listener in with it, and names them", async () => {
    const phone = freshNumber();
    const context = await getBrowser().newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    await page.goto(`${base()}/login`);
    await page.getByTestId("phone-login-link").click();
    await page.waitForURL(/\/login\/phone/);
    await page.fill(
      'input[name="phone"]',
      `${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6)}`,
    );
    await page.getByText("WhatsApp").click();
    await shot(page, "phone-1-number");
    await page.getByRole("button", { name: "Text me a code" }).click();
    await page.getByText(`We sent a code to ${phone}`).waitFor();

    const code = await outboxCode(context, phone);

    // A wrong code keeps the step open with the server's message.
    await page.fill('input[name="code"]', code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This code is incorrect or has expired").waitFor();

    await page.fill('input[name="code"]', code);
    await page.fill('input[name="nickname"]', "Phone Night Owl");
    await shot(page, "phone-2-code");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    await expect(page.getByTestId("header-nickname").textContent()).resolves.toContain(
      "Phone Night Owl",
    );
    await shot(page, "phone-3-signed-in");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the admin phone whitelist", () => {
  it("whitelists a number whose fixed code then signs in, and removes it", async () => {
    const phone = freshNumber();
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const admin = await logIn(context, "admin@hangout.local", "/admin/phones", "admin-password");
    await admin.fill('input[name="phone"]', phone);
    await admin.fill('input[name="code"]', "424242");
    await admin.fill('input[name="note"]', "App Store review");
    await admin.getByRole("button", { name: "Add a number" }).click();
    const row = admin.getByTestId("whitelist-row").filter({ hasText: phone });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain("App Store review");
    await shot(admin, "phone-4-whitelist");

    // The reviewer's device: the fixed code, no text needed.
    const reviewer = await getBrowser().newContext({ viewport: { width: 390, height: 844 } });
    const device = await reviewer.newPage();
    await device.goto(`${base()}/login/phone`);
    await device.fill('input[name="phone"]', phone);
    await device.getByRole("button", { name: "Text me a code" }).click();
    await device.fill('input[name="code"]', "424242");
    await device.getByRole("button", { name: "Sign in" }).click();
    await device.waitForURL((u) => !u.pathname.startsWith("/login"));
    await device.getByTestId("header-nickname").waitFor();
    await reviewer.close();

    await row.getByTestId("whitelist-remove").click();
    await admin.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await admin.getByText(`${phone} was removed.`).waitFor();
    await row.waitFor({ state: "detached" });
    await context.close();
  });
});

import { describe, expect, inject, it } from "vitest";
import { api, logIn, madeAccount, shot, useBrowser } from "./browser";

// Issue 16, the Connected accounts page in Debian Chromium: link Discord through the real
// OAuth flow against the harness's Discord stand-in (e2e/oauth-stub.ts), see it, unlink it,
// and a refusal at the provider. Spotify, YouTube and SoundCloud have no keys in this run,
// so the page shows them as unavailable.
const base = () => inject("baseURL");
const getBrowser = useBrowser();
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

const newAccount = () => madeAccount("Linker");

describe("Connected accounts", () => {
  it("links Discord through the provider's page, shows it, and unlinks it", async () => {
    const me = await newAccount();
    const context = await getBrowser().newContext({ viewport: DESKTOP });
    const page = await logIn(context, me.email, "/settings/connections", me.password);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const discord = page.getByTestId("connection-discord");
    await expect.poll(() => discord.getAttribute("data-linked")).toBe("no");
    expect(await discord.getAttribute("data-available")).toBe("yes");
    expect(await page.getByTestId("connection-spotify").getAttribute("data-available")).toBe("no");
    await expect
      .poll(() => page.getByTestId("connection-spotify-status").textContent())
      .toBe("Not available on this server");
    await shot(page, "linked-before-1440");

    // Out to the provider (the stand-in's consent page), and back with a code.
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/oauth2/authorize"),
      page.getByTestId("link-discord").click(),
    ]);
    expect(new URL(page.url()).searchParams.get("redirect_uri")).toBe(
      `${base()}/settings/connections/callback/discord`,
    );
    await Promise.all([
      page.waitForURL(
        (u) => u.pathname === "/settings/connections" && u.searchParams.has("linked"),
      ),
      page.locator("#authorize").click(),
    ]);
    await expect.poll(() => discord.getAttribute("data-linked")).toBe("yes");
    expect(await page.getByTestId("connection-discord-status").textContent()).toMatch(
      /^Linked as Discord Tester \d{4}/,
    );
    expect(await page.getByTestId("connections-flash").textContent()).toContain(
      "Discord is linked.",
    );
    await shot(page, "linked-discord-1440");

    // The API agrees, and holds a discord e-mail now (Discord-only avatars unlock on it).
    const list = await api<{ links: { provider: string; active: boolean }[] }>(
      "/api/user-service/linked-accounts",
      { token: me.token },
    );
    expect(list.links).toEqual([expect.objectContaining({ provider: "discord", active: true })]);
    const emails = await api<{ type: string; status: string }[] | { data: { type: string }[] }>(
      "/api/user-service/users/emails",
      { token: me.token },
    );
    const rows = Array.isArray(emails) ? emails : emails.data;
    expect(rows.map((e) => e.type)).toContain("discord");

    await page.getByTestId("unlink-discord").click();
    await expect.poll(() => discord.getAttribute("data-linked")).toBe("no");
    await shot(page, "linked-unlinked-1440");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a refusal at the provider, and a forged callback, link nothing and say why", async () => {
    const me = await newAccount();
    const context = await getBrowser().newContext({ viewport: PHONE });
    const page = await logIn(context, me.email, "/settings/connections", me.password);
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/oauth2/authorize"),
      page.getByTestId("link-discord").click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("failed") === "denied"),
      page.locator("#cancel").click(),
    ]);
    await expect
      .poll(() => page.getByTestId("connections-flash").textContent())
      .toContain("You didn't allow Hangout at Discord");
    expect(await page.getByTestId("connection-discord").getAttribute("data-linked")).toBe("no");
    await shot(page, "linked-denied-390");

    // A callback this browser did not start (no state cookie): refused before the API.
    await page.goto(`${base()}/settings/connections/callback/discord?code=abc&state=forged`);
    await page.waitForURL((u) => u.searchParams.get("failed") === "state");
    expect(await page.getByTestId("connection-discord").getAttribute("data-linked")).toBe("no");

    await page.goto(`${base()}/settings/connections?lang=es`);
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toBe("Cuentas conectadas");
    await shot(page, "linked-390-es");
    await page.goto(`${base()}/settings/connections?lang=en`);
    await context.close();
  });

  it("signs up with Discord from the log-in page and lands signed in", async () => {
    const context = await getBrowser().newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${base()}/login`);
    await shot(page, "linked-login-discord-1440");
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/oauth2/authorize"),
      page.getByTestId("discord-sign-in").click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/"),
      page.locator("#authorize").click(),
    ]);
    // Signed in: the new account's Connected accounts page shows Discord linked.
    await page.goto(`${base()}/settings/connections`);
    await expect
      .poll(() => page.getByTestId("connection-discord").getAttribute("data-linked"))
      .toBe("yes");
    await shot(page, "linked-discord-sign-up-1440");
    // Its only way in is Discord: unlinking is refused, and the page says why.
    await page.getByTestId("unlink-discord").click();
    await expect
      .poll(() => page.getByTestId("toasts").textContent())
      .toContain("You sign in with Discord");
    expect(await page.getByTestId("connection-discord").getAttribute("data-linked")).toBe("yes");
    await context.close();
  });
});

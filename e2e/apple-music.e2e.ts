import { describe, expect, it } from "vitest";
import { api, logIn, madeAccount, shot, useBrowser } from "./browser";
import { STUB_APPLE_DEVELOPER_TOKEN } from "./oauth-stub";

// Issue 16, Apple Music linking from the Connected accounts page in Debian Chromium. The page
// loads MusicKit JS from configuration; in this development run that is the local stand-in
// (public/musickit-stand-in.js, MusicKit's shape), configured with our developer token. Its
// Music User Token goes to POST /apple/user-token, which asks Apple's API (the harness's
// stand-in, e2e/oauth-stub.ts, at the fetch boundary) before keeping it.
const getBrowser = useBrowser();
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

describe("Apple Music on Connected accounts", () => {
  it("links Apple Music through MusicKit, shows it, and unlinks it", async () => {
    const me = await madeAccount("Apple Linker");
    const context = await getBrowser().newContext({ viewport: DESKTOP });
    const page = await logIn(context, me.email, "/settings/connections", me.password);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const apple = page.getByTestId("connection-apple");
    await expect.poll(() => apple.getAttribute("data-linked")).toBe("no");
    expect(await apple.getAttribute("data-available")).toBe("yes");

    await page.getByTestId("link-apple").click();
    await expect.poll(() => apple.getAttribute("data-linked"), { timeout: 15_000 }).toBe("yes");
    expect(await page.getByTestId("connection-apple-status").textContent()).toMatch(
      /^Linked as Apple Music \(US\)/,
    );
    // MusicKit was configured with the server's developer token.
    expect(
      await page.evaluate(
        () =>
          (window as unknown as { __musicKitStandIn: { configuredWith: string } }).__musicKitStandIn
            .configuredWith,
      ),
    ).toBe(STUB_APPLE_DEVELOPER_TOKEN);
    await expect
      .poll(() => page.getByTestId("toasts").textContent())
      .toContain("Apple Music is linked.");
    await shot(page, "linked-apple-1440");

    // The API holds it (sealed; the owner reads it back).
    const held = await api<{ musicUserToken: string }>(
      `/api/user-service/apple/user-token/${me.uuid}`,
      { token: me.token },
    );
    expect(held.musicUserToken).toMatch(/^stand-in-mut-[0-9a-f]{48}$/);

    await page.getByTestId("unlink-apple").click();
    await expect.poll(() => apple.getAttribute("data-linked")).toBe("no");
    const list = await api<{ links: { provider: string }[] }>("/api/user-service/linked-accounts", {
      token: me.token,
    });
    expect(list.links.map((l) => l.provider)).not.toContain("apple");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a person who says no at Apple links nothing, and the page says so", async () => {
    const me = await madeAccount("Apple Refuser");
    const context = await getBrowser().newContext({ viewport: PHONE });
    const page = await logIn(context, me.email, "/settings/connections", me.password);
    await expect.poll(() => page.getByTestId("link-apple").count()).toBe(1);
    // Load MusicKit (the stand-in) first, then have it refuse, as a person closing Apple's dialog.
    await page.addScriptTag({ url: "/musickit-stand-in.js" });
    await page.evaluate(() => {
      (window as unknown as { __musicKitStandIn: { deny: boolean } }).__musicKitStandIn.deny = true;
    });
    await page.getByTestId("link-apple").click();
    await expect
      .poll(() => page.getByTestId("toasts").textContent())
      .toContain("Apple Music didn't give Hangout access");
    expect(await page.getByTestId("connection-apple").getAttribute("data-linked")).toBe("no");
    await shot(page, "linked-apple-denied-390");
    await context.close();
  });
});

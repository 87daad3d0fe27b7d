import { describe, expect, inject, it } from "vitest";
import { api, logIn, PNG_1x1, shot, tokenFor, useBrowser } from "./browser";

// The token shop in a room (issue 5, "Browser test"): Lou has tokens (granted through the
// development-only admin grant), opens the room Kim is in, sends a consumable from the
// "Send something" drawer after a confirmation naming its cost; Kim's page shows it in the
// chat, and the balance in Lou's header drops at once.
const base = () => inject("baseURL");
const ADMIN = "admin@hangout.local";
const ADMIN_PASSWORD = "admin-password";
const KIM = "kim@hangout.local";
const LOU = "lou@hangout.local";
const MERCH = "/api/merch-service/api/v1";

const getBrowser = useBrowser();

describe("store: a consumable bought in a room", () => {
  it("Lou sends one from the drawer; Kim sees it in chat; Lou's balance drops", async () => {
    const adminToken = await tokenFor(ADMIN, ADMIN_PASSWORD);
    const kimToken = await tokenFor(KIM);
    const louToken = await tokenFor(LOU);

    // An item with a picture, made the way the admin page does it.
    const form = new FormData();
    form.append("file", new Blob([PNG_1x1], { type: "image/png" }), "confetti.png");
    const file = await api<{ id: string }>(`${MERCH}/consumables/files`, {
      method: "POST",
      token: adminToken,
      body: form,
    });
    const name = `Confetti ${Date.now().toString(36)}`;
    const item = await api<{ id: number; tokenCost: number }>(`${MERCH}/consumables`, {
      method: "POST",
      token: adminToken,
      body: JSON.stringify({
        name,
        tokenCost: 25,
        displayType: "cover",
        fileId: file.id,
        description: "A burst of colour over the floor.",
      }),
    });

    // Lou's account, topped up to exactly 100 for a readable check.
    const acc = await api<{ id: string; balance: number }>(`${MERCH}/token-accounts`, {
      method: "POST",
      token: louToken,
    });
    const grant = Math.max(0, 100 - acc.balance);
    if (grant > 0)
      await api(`${MERCH}/token-accounts/${acc.id}/grant`, {
        method: "POST",
        token: adminToken,
        body: JSON.stringify({ amount: grant }),
      });
    const before = await api<{ balance: number }>(`${MERCH}/token-accounts/self`, {
      token: louToken,
    });
    expect(before.balance).toBeGreaterThanOrEqual(100);

    const room = await api<{ uuid: string; slug: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: kimToken,
        body: JSON.stringify({ name: `Treats ${Date.now().toString(36)}` }),
      },
    );
    const path = `/rooms/${room.slug}`;

    const errors: string[] = [];
    const kimCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const louCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const kim = await logIn(kimCtx, KIM, path);
    kim.on("pageerror", (e) => errors.push(`kim: ${e}`));
    const lou = await logIn(louCtx, LOU, path);
    lou.on("pageerror", (e) => errors.push(`lou: ${e}`));
    for (const p of [kim, lou])
      await expect
        .poll(() => p.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
        .toBe("open");

    const fmt = (n: number) => new Intl.NumberFormat("en").format(n);
    await expect
      .poll(() => lou.getByTestId("token-balance").textContent())
      .toBe(fmt(before.balance));

    // The drawer, the item, the confirmation naming its cost.
    await lou.getByTestId("send-something").click();
    const drawer = lou.getByTestId("shop-drawer");
    const card = drawer.getByTestId("consumable-card").filter({ hasText: name });
    await card.waitFor({ timeout: 15_000 });
    await shot(lou, "store-01-drawer-1440");
    await card.getByTestId("consumable-send").click();
    await expect.poll(() => lou.getByTestId("confirm-cost").textContent()).toContain("25 tokens");
    await shot(lou, "store-02-confirm-1440");
    await lou.getByTestId("confirm").click();

    // Lou's header drops at once; Kim's chat shows the item.
    await expect
      .poll(() => lou.getByTestId("token-balance").textContent(), { timeout: 15_000 })
      .toBe(fmt(before.balance - 25));
    const line = kim.getByTestId("chat-consumable").filter({ hasText: name });
    await line.waitFor({ timeout: 15_000 });
    expect(await line.textContent()).toContain(name);
    await lou.keyboard.press("Escape");
    await shot(kim, "store-03-kim-sees-it-1440");
    await shot(lou, "store-04-lou-after-1440");

    // The server agrees: charged once.
    expect(
      (await api<{ balance: number }>(`${MERCH}/token-accounts/self`, { token: louToken })).balance,
    ).toBe(before.balance - 25);

    // The shop page at phone width, with the balance in the header.
    const phone = await louCtx.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${base()}/shop`);
    await phone.getByTestId("consumable-list").waitFor();
    expect(await phone.getByTestId("token-balance").textContent()).toBe(fmt(before.balance - 25));
    await shot(phone, "store-05-shop-390");

    // The room at phone width: the chat drawer, then the shop drawer from its gift button.
    await phone.goto(`${base()}${path}`);
    await expect
      .poll(() => phone.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await phone.getByTestId("open-chat").click();
    await phone
      .locator(`[data-testid="chat-consumable"]:visible`)
      .filter({ hasText: name })
      .waitFor();
    await shot(phone, "store-06-room-chat-390");
    await phone.locator('[data-testid="send-something"]:visible').click();
    await phone.getByTestId("shop-drawer").getByTestId("consumable-card").first().waitFor();
    await phone.screenshot({ path: ".e2e/shots/store-07-drawer-390.png" });

    // The admin pages list what was made.
    const adminCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const adminPage = await logIn(adminCtx, ADMIN, "/admin/consumables", ADMIN_PASSWORD);
    await adminPage.getByTestId("admin-consumable-row").filter({ hasText: name }).waitFor();
    await shot(adminPage, "store-08-admin-consumables-1440");
    await adminPage.goto(`${base()}/admin/consumables/${item.id}`);
    await adminPage.getByTestId("consumable-image").waitFor();
    await shot(adminPage, "store-09-admin-consumable-1440");
    await adminPage.goto(`${base()}/admin/token-bundles`);
    await adminPage.getByTestId("bundles-total").waitFor();
    await shot(adminPage, "store-10-admin-bundles-1440");

    expect(errors).toEqual([]);
    await Promise.all([kimCtx.close(), louCtx.close(), adminCtx.close()]);
  });
});

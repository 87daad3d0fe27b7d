import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// Local test mode, as `npm run dev` runs it with no Stripe key: a user buys a token bundle
// on the local checkout page and sees the new balance; subscribes to the seeded plan and
// cancels in the local portal; an admin manages products. Demo products come from
// scripts/seed-shop.mjs.
const getBrowser = useBrowser();

const BUYER = "lou@hangout.local";
const SUBSCRIBER = "kim@hangout.local";

/** The balance the API reports (0 before the first purchase makes the account). */
async function apiBalance(email: string): Promise<number> {
  const token = await tokenFor(email);
  try {
    return (
      await api<{ balance: number }>("/api/merch-service/api/v1/token-accounts/self", { token })
    ).balance;
  } catch {
    return 0;
  }
}

function watchErrors(page: Page) {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

describe("payments in local test mode", () => {
  it("buys a token bundle on the local checkout page and sees the balance", async () => {
    const before = await apiBalance(BUYER);
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, BUYER, "/tokens");
    const errors = watchErrors(page);
    await page.getByTestId("bundle-card").first().waitFor();
    await shot(page, "payments-1-tokens");

    await Promise.all([
      page.waitForURL(/\/checkout\/local\/cs_local_/),
      page.getByTestId("buy-demo-tokens-100").click(),
    ]);
    await expect(page.getByTestId("checkout-product").textContent()).resolves.toBe("100 tokens");
    await expect(page.getByTestId("checkout-price").textContent()).resolves.toBe("$1.99");
    // The tokens this session credits, fixed when checkout started.
    await expect(page.getByTestId("checkout-tokens").textContent()).resolves.toBe("100 tokens");
    await shot(page, "payments-2-local-checkout");

    await Promise.all([
      page.waitForURL(/\/tokens\?session_id=cs_local_/),
      page.getByRole("button", { name: "Pay (test mode)" }).click(),
    ]);
    const expected = before + 100;
    await expect(page.getByTestId("tokens-balance").textContent()).resolves.toContain(
      `${expected} tokens`,
    );
    await page.getByText("Payment received.").waitFor();
    // The header's balance (the store's component) shows the new number too.
    await page
      .getByTestId("token-balance")
      .filter({ hasText: String(expected) })
      .first()
      .waitFor();
    expect(await apiBalance(BUYER)).toBe(expected);
    await shot(page, "payments-3-paid");

    // Phone width.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "payments-4-tokens-phone");

    // Cancel on the checkout page: back to /tokens, nothing charged.
    await page.setViewportSize({ width: 1440, height: 900 });
    await Promise.all([
      page.waitForURL(/\/checkout\/local\//),
      page.getByTestId("buy-demo-tokens-550").click(),
    ]);
    await Promise.all([
      page.waitForURL(/\/tokens\?canceled=1/),
      page.getByRole("button", { name: "Cancel" }).click(),
    ]);
    await page.getByText("Checkout canceled.").waitFor();
    expect(await apiBalance(BUYER)).toBe(expected);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("subscribes to the plan, sees the level, and cancels in the local portal", async () => {
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, SUBSCRIBER, "/subscription");
    const errors = watchErrors(page);
    await page.getByTestId("subscription-none").waitFor();
    await shot(page, "payments-5-subscription");

    await Promise.all([
      page.waitForURL(/\/checkout\/local\//),
      page.getByTestId("subscribe-demo-plan-pro").click(),
    ]);
    await expect(page.getByTestId("checkout-price").textContent()).resolves.toBe("$4.99 / month");
    await Promise.all([
      page.waitForURL(/\/subscription\?session_id=/),
      page.getByRole("button", { name: "Pay (test mode)" }).click(),
    ]);
    await expect(page.getByTestId("subscription-level").textContent()).resolves.toBe("Level: pro");
    await shot(page, "payments-6-subscribed");

    await Promise.all([
      page.waitForURL(/\/subscription\/local-portal/),
      page.getByRole("button", { name: "Manage subscription" }).click(),
    ]);
    await shot(page, "payments-7-local-portal");
    await Promise.all([
      page.waitForURL(/\/subscription\?ended=1/),
      page.getByRole("button", { name: "Cancel subscription" }).click(),
    ]);
    await page.getByTestId("subscription-none").waitFor();
    const token = await tokenFor(SUBSCRIBER);
    expect(
      (
        await api<{ subscriptionLevel: string | null }>("/api/payment-service/subscription", {
          token,
        })
      ).subscriptionLevel,
    ).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("an admin creates, edits and deletes a product", async () => {
    const context = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const page = await logIn(context, "admin@hangout.local", "/admin/products", "admin-password");
    const errors = watchErrors(page);
    await page.getByTestId("admin-product-row").first().waitFor();
    await shot(page, "payments-8-admin-products");

    await Promise.all([
      page.waitForURL(/\/admin\/products\/new/),
      page.getByRole("link", { name: "New product" }).click(),
    ]);
    const name = `E2E plan ${Date.now().toString(36)}`;
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Payment type").selectOption("recurring");
    await page.getByLabel("Price in cents").fill("1299");
    // A plan without a level: the API's message is shown and nothing is created.
    await page.getByRole("button", { name: "Create product" }).click();
    await page.getByText("subscriptionLevel is required for a recurring product.").waitFor();
    await page.getByLabel("Subscription level (recurring only)").fill("gold");
    await Promise.all([
      page.waitForURL((u) => /\/admin\/products\/(?!new)[^/]+$/.test(u.pathname)),
      page.getByRole("button", { name: "Create product" }).click(),
    ]);
    await page.getByLabel("Price in cents").fill("1499");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved.").waitFor();
    await shot(page, "payments-9-admin-product");
    await Promise.all([
      page.waitForURL(/\/admin\/products$/),
      page.getByRole("button", { name: "Delete product" }).click(),
    ]);
    expect(await page.getByText(name).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

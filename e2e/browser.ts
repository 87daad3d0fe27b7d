import { chromium, type Browser, type Page } from "playwright-core";

/** Debian Chromium, offline-safe flags (STACK.md, "Browser tests"). */
export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"],
  });
}

/** Save a screenshot under .e2e/shots for a person to look at. */
export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `.e2e/shots/${name}.png`, fullPage: true });
}

/** A tiny valid PNG (1x1, purple). */
export const PNG_1x1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6308d3fdf91f0004d5027c341312790000000049454e44ae426082",
  "hex",
);

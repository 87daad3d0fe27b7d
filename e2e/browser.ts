import { mkdirSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

/** Offline-safe flags for Debian Chromium (STACK.md, "Browser tests"). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--autoplay-policy=no-user-gesture-required",
];

/** Debian Chromium with CHROMIUM_ARGS. */
export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/**
 * Content-Security-Policy violations seen in each context (workers/security-headers.ts): a
 * script, style, image or socket the policy blocks is a broken page, whether or not the test
 * was looking at that part. Chromium reports each one as a console error.
 */
const cspViolations = new WeakMap<BrowserContext, string[]>();
export function watchCsp(context: BrowserContext) {
  const seen: string[] = [];
  cspViolations.set(context, seen);
  context.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
}

/** Save a screenshot under .e2e/shots for a person to look at; fails on any CSP violation. */
export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `.e2e/shots/${name}.png`, fullPage: true });
  const violations = cspViolations.get(page.context()) ?? [];
  if (violations.length) throw new Error(`CSP violations on ${name}:\n${violations.join("\n")}`);
}

/** A tiny valid PNG (1x1, purple). */
export const PNG_1x1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6308d3fdf91f0004d5027c341312790000000049454e44ae426082",
  "hex",
);

/**
 * Calls the product's API from a test (the server the harness started); a non-2xx answer
 * throws with its body, so a failing setup step says what went wrong.
 */
export async function api<T>(
  path: string,
  init: RequestInit & { token?: string } = {},
): Promise<T> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  if (init.body && typeof init.body === "string") headers.set("Content-Type", "application/json");
  const res = await fetch(`${inject("baseURL")}${path}`, { ...init, headers });
  const text = await res.text();
  if (!res.ok)
    throw new Error(
      `${init.method ?? "GET"} ${path} answered ${res.status}: ${text.slice(0, 300)}`,
    );
  return (text ? JSON.parse(text) : null) as T;
}

/** One browser for a test file, with the screenshot folder ready; closed after the file. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(".e2e/shots", { recursive: true });
    browser = await launch();
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (...args) => {
      const context = await newContext(...args);
      watchCsp(context);
      return context;
    };
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** The seeded users' shared password (scripts/seed.mjs). */
export const SEED_PASSWORD = "user-password";

/** A seeded user's API token. */
export const tokenFor = async (email: string, password = SEED_PASSWORD) =>
  (
    await api<{ token: string }>("/api/user-service/auth/login", {
      method: "POST",
      body: JSON.stringify({ email, password }),
    })
  ).token;

/** A new page in `context`, logged in through the login form and landed on `to`. */
export async function logIn(
  context: BrowserContext,
  email: string,
  to: string,
  password = SEED_PASSWORD,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${inject("baseURL")}/login?redirectTo=${encodeURIComponent(to)}`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === to),
    page.locator('main form button[type="submit"]').click(),
  ]);
  return page;
}

let adminToken: Promise<string> | undefined;

/**
 * A new account made by the seeded admin (its e-mail counts as verified), with a token. The
 * e2e files share one local "network", whose sign-up budget (5 an hour: RULES.signUpPerIp)
 * belongs to the journeys that test signing up; every other file makes its people here.
 */
export async function madeAccount(nickname: string, password = "a long enough password") {
  const email = `e2e.${nickname.toLowerCase().replace(/[^a-z0-9]/g, "")}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  adminToken ??= tokenFor("admin@hangout.local", "admin-password");
  const made = await api<{ uuid: string }>("/api/user-service/users/admin/sign-up", {
    method: "POST",
    token: await adminToken,
    body: JSON.stringify({ email, password, nickname }),
  });
  return { email, password, nickname, uuid: made.uuid, token: await tokenFor(email, password) };
}

/**
 * The six-digit code in the newest dev-outbox message to `to` (an e-mail or a phone number),
 * read from the /dev/outbox page as a person would, waiting up to 10 s for the queue.
 */
export async function outboxCode(context: BrowserContext, to: string): Promise<string> {
  const outbox = await context.newPage();
  let code: string | undefined;
  for (let i = 0; i < 40 && !code; i++) {
    await outbox.goto(`${inject("baseURL")}/dev/outbox?to=${encodeURIComponent(to)}`);
    const text =
      (await outbox
        .getByTestId("outbox-message")
        .first()
        .textContent({ timeout: 500 })
        .catch(() => null)) ?? "";
    code = text.match(/\b(\d{6})\b/)?.[1];
    if (!code) await outbox.waitForTimeout(250);
  }
  await outbox.close();
  if (!code) throw new Error(`no code for ${to} in the dev outbox`);
  return code;
}

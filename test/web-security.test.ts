import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_BODY_MAX_BYTES } from "../workers/lib/body-cap";
import { WEB_FORM_MAX_BYTES } from "../workers/web-guard";
import { signUp, user, webSessionCookie } from "./helpers";

/**
 * The web layer as an attacker meets it (issue 13): the headers on every page, a cross-site
 * form post, an oversized or endless body, and a link previewer fetching a magic link.
 */
const SITE = "http://hangout.test";
/** As a browser sends it: with a Host header (Remix compares an action's Origin with it). */
const page = (path: string, init: RequestInit = {}) =>
  SELF.fetch(`${SITE}${path}`, {
    ...init,
    headers: { Host: "hangout.test", ...(init.headers as Record<string, string>) },
  });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

/** A body that arrives in chunks with no Content-Length, `total` bytes in all. */
function endless(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(16 * 1024, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(97));
    },
  });
}

describe("security headers", () => {
  it("every page carries a nonce CSP that matches each inline script, frame-ancestors 'none', nosniff and a referrer policy", async () => {
    for (const path of ["/", "/login", "/rooms", "/no-such-page"]) {
      const res = await page(path);
      const csp = res.headers.get("Content-Security-Policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      const nonce = csp.match(/'nonce-([^']+)'/)?.[1];
      expect(nonce).toBeTruthy();
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("X-Frame-Options")).toBe("DENY");
      expect(res.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
      const html = await res.text();
      const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
      expect(inline.length, path).toBeGreaterThan(0);
      for (const [, attrs] of inline) expect(attrs).toContain(`nonce="${nonce}"`);
    }
    // A fresh nonce per response: one that could be read once is no use for the next page.
    const a = (await page("/")).headers.get("Content-Security-Policy");
    const b = (await page("/")).headers.get("Content-Security-Policy");
    expect(a).not.toBe(b);
  });
});

describe("cross-site form posts", () => {
  it("a login posted from another site is 403 and signs nobody in (login CSRF)", async () => {
    const victim = await signUp();
    const body = form({ email: victim.email, password: victim.password });
    for (const headers of [
      { ...FORM, Origin: "https://evil.example" },
      { ...FORM, Origin: "null" },
      { ...FORM, "Sec-Fetch-Site": "cross-site" },
      { ...FORM, "Sec-Fetch-Site": "same-site" },
      FORM,
    ]) {
      const res = await page("/login", { method: "POST", headers, body, redirect: "manual" });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get("Set-Cookie")).toBeNull();
      expect(await res.text()).toContain("Cross-site");
    }
    // The same post from our own page signs in.
    const ours = await page("/login", {
      method: "POST",
      headers: { ...FORM, Origin: SITE },
      body,
      redirect: "manual",
    });
    expect(ours.status).toBe(302);
    expect(ours.headers.get("Set-Cookie")).toMatch(/^tt_session=[\w-]{43};/);
    const fetchMeta = await page("/login", {
      method: "POST",
      headers: { ...FORM, "Sec-Fetch-Site": "same-origin" },
      body,
      redirect: "manual",
    });
    expect(fetchMeta.status).toBe(302);
  });

  it("over https the session cookie is __Host- (Secure, Path=/, no Domain), so no subdomain can plant one", async () => {
    const a = await signUp();
    const res = await SELF.fetch("https://hangout.test/login", {
      method: "POST",
      headers: { ...FORM, Host: "hangout.test", Origin: "https://hangout.test" },
      body: form({ email: a.email, password: a.password }),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    const cookie = res.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/^__Host-session=[\w-]{43};/);
    expect(cookie).toContain("Secure");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toMatch(/Domain=/i);
    // A plain tt_session (what a subdomain could set) is not a session over https.
    const planted = await SELF.fetch("https://hangout.test/profile", {
      headers: { Host: "hangout.test", Cookie: await webSessionCookie(a.token) },
      redirect: "manual",
    });
    expect(planted.status).toBe(302);
    expect(planted.headers.get("Location")).toContain("/login");
  });

  it("a logout posted from another site does not end the session", async () => {
    const res = await page("/logout", {
      method: "POST",
      headers: { ...FORM, Origin: "https://evil.example", Cookie: "tt_session=a-b-c" },
      redirect: "manual",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("Set-Cookie")).toBeNull();
  });
});

describe("body caps", () => {
  it("a web form over the cap is 413 before it is read, declared or streamed", async () => {
    const big = "a".repeat(WEB_FORM_MAX_BYTES + 1);
    const declared = await page("/login", {
      method: "POST",
      headers: { ...FORM, Origin: SITE },
      body: form({ email: big, password: "x" }),
    });
    expect(declared.status).toBe(413);
    const streamed = await page("/login", {
      method: "POST",
      headers: { ...FORM, Origin: SITE },
      body: endless(8 * 1024 * 1024),
      // @ts-expect-error workerd needs duplex for a streamed request body
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
    // An anonymous multipart post gets the form cap, not the upload one.
    const fd = new FormData();
    fd.set("file", new File([new Uint8Array(WEB_FORM_MAX_BYTES + 1)], "a.png"));
    const anon = await page("/profile/edit", {
      method: "POST",
      headers: { Origin: SITE },
      body: fd,
    });
    expect(anon.status).toBe(413);
  });

  it("an API body over 1 MiB is 413 with a message, streamed or declared; uploads keep their own caps", async () => {
    const huge = JSON.stringify({ email: "a".repeat(API_BODY_MAX_BYTES), password: "x" });
    const r = await user("/auth/login", { body: huge });
    expect(r.status).toBe(413);
    expect(r.body.message).toContain("too large");
    const streamed = await SELF.fetch(`${SITE}/api/user-service/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: endless(4 * 1024 * 1024),
      // @ts-expect-error workerd needs duplex for a streamed request body
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
    // A normal body still works.
    const a = await signUp();
    expect(
      (await user("/auth/login", { body: { email: a.email, password: a.password } })).status,
    ).toBe(200);
  });
});

describe("magic links", () => {
  it("opening the link (a mail scanner, a chat unfurler) spends nothing; the button's post signs in once", async () => {
    const a = await signUp();
    const made = await user("/auth/magic-link?target=%2Fprofile", { token: a.token });
    const path = new URL(made.body.url).pathname;
    for (let i = 0; i < 3; i++) {
      const preview = await page(path, { redirect: "manual" });
      expect(preview.status).toBe(200);
      expect(preview.headers.get("Set-Cookie")).toBeNull();
      expect(await preview.text()).toContain("Sign me in");
    }
    const signIn = await page(path, {
      method: "POST",
      headers: { ...FORM, Origin: SITE },
      body: form({ intent: "sign-in" }),
      redirect: "manual",
    });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("Location")).toBe("/profile");
    expect(signIn.headers.get("Set-Cookie")).toMatch(/^tt_session=/);
    const again = await page(path, {
      method: "POST",
      headers: { ...FORM, Origin: SITE },
      body: form({ intent: "sign-in" }),
      redirect: "manual",
    });
    expect(again.status).toBe(401);
    expect(again.headers.get("Set-Cookie")).toBeNull();
  });
});

describe("log out everywhere", () => {
  it("ends every session of the account on the server (another device's token stops working); a plain logout ends none", async () => {
    const a = await signUp();
    const laptop = (await user("/auth/login", { body: { email: a.email, password: a.password } }))
      .body.token as string;
    const session = (token: string) => user("/auth/session", { token });
    const browser = await webSessionCookie(a.token);
    // A plain logout ends only this browser's session.
    const plain = await page("/logout", {
      method: "POST",
      headers: { ...FORM, Origin: SITE, Cookie: await webSessionCookie(a.token) },
      body: form({}),
      redirect: "manual",
    });
    expect(plain.status).toBe(302);
    expect((await session(laptop)).status).toBe(200);
    // From another site it is refused and ends nothing.
    const forged = await page("/logout", {
      method: "POST",
      headers: { ...FORM, Origin: "https://evil.example", Cookie: browser },
      body: form({ intent: "everywhere" }),
      redirect: "manual",
    });
    expect(forged.status).toBe(403);
    expect((await session(laptop)).status).toBe(200);
    const everywhere = await page("/logout", {
      method: "POST",
      headers: { ...FORM, Origin: SITE, Cookie: browser },
      body: form({ intent: "everywhere" }),
      redirect: "manual",
    });
    expect(everywhere.status).toBe(302);
    expect(everywhere.headers.get("Set-Cookie")).toContain("Max-Age=0");
    expect((await session(laptop)).status).toBe(401);
    expect((await session(a.token)).status).toBe(401);
    // The password still works: a new session starts.
    expect(
      (await user("/auth/login", { body: { email: a.email, password: a.password } })).status,
    ).toBe(200);
    expect((await user("/auth/logout-everywhere", { method: "POST" })).status).toBe(401);
  });
});

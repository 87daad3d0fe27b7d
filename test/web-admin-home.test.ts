import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, signUp, webSessionCookie } from "./helpers";

// The admin home (issue 20): /admin lists every admin page for an admin; a plain user gets
// the 403 page and a visitor is sent to log in, as on every other admin page.
const SITE = "http://hangout.test";
const get = async (path: string, token?: string) =>
  SELF.fetch(`${SITE}${path}`, {
    headers: token ? { Cookie: await webSessionCookie(token) } : {},
    redirect: "manual",
  });

const SECTIONS = [
  "/admin/users",
  "/admin/audit",
  "/admin/deactivations",
  "/admin/phones",
  "/admin/consumables",
  "/admin/token-bundles",
  "/admin/seasons",
  "/admin/ranking-status",
  "/admin/points-dead-letters",
  "/admin/avatars",
  "/admin/products",
];

describe("GET /admin (the admin home)", () => {
  it("links an admin to every admin page, and the header's Admin link goes there", async () => {
    const boss = await admin();
    const res = await get("/admin", boss.token);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const to of SECTIONS) expect(html, to).toContain(`href="${to}"`);
    expect(html.match(/data-testid="admin-home-link"/g)).toHaveLength(SECTIONS.length);
    expect(html.match(/<a[^>]*data-testid="nav-admin"[^>]*>/)?.[0]).toContain('href="/admin"');
  });

  it("is in Spanish for a Spanish reader", async () => {
    const boss = await admin();
    const res = await get("/admin?lang=es", boss.token);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Quién hizo qué, cuándo y dónde.");
  });

  it("refuses a plain user with the 403 page and shows no link", async () => {
    const plain = await signUp();
    const res = await get("/admin", plain.token);
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).not.toContain('data-testid="admin-home-link"');
    expect(html).not.toContain('data-testid="nav-admin"');
  });

  it("sends a visitor with no session to log in", async () => {
    const res = await get("/admin");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fadmin/);
  });
});

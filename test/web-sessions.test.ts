import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { users, webSessions } from "../workers/db/schema";
import { sha256 } from "../workers/lib/crypto";
import { MAX_WEB_SESSIONS_PER_USER } from "../workers/lib/web-sessions";
import { ensureRoom } from "./room-helpers";
import { signUp, user, webSessionCookie } from "./helpers";

/**
 * Opaque web sessions (issue 13): the browser holds a random id in an HttpOnly cookie, the
 * page never sees a bearer token, the cookie counts only from our own pages, and every way a
 * session ends ends it on the server.
 */
const SITE = "http://hangout.test";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;
const page = (path: string, init: RequestInit = {}) =>
  SELF.fetch(`${SITE}${path}`, {
    redirect: "manual",
    ...init,
    headers: { Host: "hangout.test", ...(init.headers as Record<string, string>) },
  });
/** A browser's own API call from our page (fetch sends Sec-Fetch-Site; a POST also Origin). */
const api = (path: string, cookie: string, init: RequestInit = {}) =>
  SELF.fetch(`${SITE}/api/user-service${path}`, {
    ...init,
    headers: {
      Cookie: cookie,
      "Sec-Fetch-Site": "same-origin",
      ...(init.method && init.method !== "GET" ? { Origin: SITE } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
const sessionsOf = async (uuid: string) =>
  (await db(env).select().from(webSessions).where(eq(webSessions.userUuid, uuid)).all()).length;
const nicknameOf = async (uuid: string) =>
  (await db(env).select().from(users).where(eq(users.uuid, uuid)).get())?.nickname;

/** Signs in through the login page, as a browser does: the Set-Cookie's `name=value`. */
async function pageLogin(email: string, password: string): Promise<string> {
  const res = await page("/login", {
    method: "POST",
    headers: { ...FORM, Origin: SITE },
    body: new URLSearchParams({ email, password }).toString(),
  });
  expect(res.status).toBe(302);
  const set = res.headers.get("Set-Cookie") ?? "";
  expect(set).toContain("HttpOnly");
  expect(set).toContain("SameSite=Lax");
  return set.split(";")[0];
}

describe("the page never holds a bearer token", () => {
  it("signing in sets an opaque id, D1 keeps only its hash, and no page or data request carries a JWT", async () => {
    const a = await signUp();
    const cookie = await pageLogin(a.email, a.password);
    const id = cookie.split("=")[1];
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(id).not.toMatch(JWT);
    const rows = await db(env)
      .select()
      .from(webSessions)
      .where(eq(webSessions.userUuid, a.uuid))
      .all();
    expect(rows.map((r) => r.idHash)).toEqual([await sha256(id)]);
    for (const path of ["/", "/profile", "/rooms", "/shop", "/upload", "/_root.data"]) {
      const res = await page(path, { headers: { Cookie: cookie } });
      const text = await res.text();
      expect(res.status, path).toBe(200);
      expect(text, path).not.toMatch(JWT);
      expect(text, path).not.toContain(a.token);
    }
    // Signed in for real: the profile page shows the account, not the login form.
    expect(await (await page("/profile", { headers: { Cookie: cookie } })).text()).toContain(
      (await nicknameOf(a.uuid))!,
    );
  });

  it("a room page gives the browser no token, signed in or as a guest", async () => {
    const a = await signUp();
    const room = `sess-${crypto.randomUUID().slice(0, 8)}`;
    await ensureRoom(room);
    const signedIn = await page(`/rooms/t-${room}`, {
      headers: { Cookie: await webSessionCookie(a.token) },
    });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).not.toMatch(JWT);
    const guest = await page(`/rooms/t-${room}`);
    expect(guest.status).toBe(200);
    expect(await guest.text()).not.toMatch(JWT);
    // The guest's token is kept in an HttpOnly cookie only.
    expect(guest.headers.get("Set-Cookie")).toMatch(/^tt_guest=[^;]+;.*HttpOnly/);
  });
});

describe("the cookie counts only from our own pages", () => {
  it("a same-origin API call acts as the user; from another site or with no fetch metadata it is anonymous", async () => {
    const a = await signUp();
    const cookie = await webSessionCookie(a.token);
    expect((await api("/users/profile", cookie)).status).toBe(200);
    expect(((await (await api("/users/profile", cookie)).json()) as { uuid: string }).uuid).toBe(
      a.uuid,
    );
    const elsewhere: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      { "Sec-Fetch-Site": "none" },
      { Origin: "https://evil.example" },
    ];
    for (const headers of elsewhere) {
      const res = await SELF.fetch(`${SITE}/api/user-service/users/profile`, {
        headers: { Cookie: cookie, ...headers },
      });
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    const bare = await SELF.fetch(`${SITE}/api/user-service/users/profile`, {
      headers: { Cookie: cookie },
    });
    expect(bare.status).toBe(401);
  });

  it("a cross-site POST riding the cookie changes nothing (API CSRF)", async () => {
    const a = await signUp();
    const cookie = await webSessionCookie(a.token);
    const before = await nicknameOf(a.uuid);
    const forged = await SELF.fetch(`${SITE}/api/user-service/users/profile`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ nickname: "pwned" }),
    });
    expect(forged.status).toBe(401);
    expect(await nicknameOf(a.uuid)).toBe(before);
    // From our page the same call works.
    const ours = await api("/users/profile", cookie, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ nickname: "renamed" }),
    });
    expect(ours.status).toBe(200);
    expect(await nicknameOf(a.uuid)).toBe("renamed");
  });

  it("a room socket rides the cookie from our origin only", async () => {
    const a = await signUp();
    const room = `sock-${crypto.randomUUID().slice(0, 8)}`;
    await ensureRoom(room);
    const cookie = await webSessionCookie(a.token);
    const open = (headers: Record<string, string>) =>
      SELF.fetch(`${SITE}/parties/room/${room}`, { headers: { Upgrade: "websocket", ...headers } });
    const ours = await open({ Cookie: cookie, Origin: SITE });
    expect(ours.status).toBe(101);
    ours.webSocket!.accept();
    ours.webSocket!.close();
    // Cross-site WebSocket hijacking: another page opening our socket with the user's cookie.
    expect((await open({ Cookie: cookie, Origin: "https://evil.example" })).status).toBe(401);
    expect((await open({ Cookie: cookie })).status).toBe(401);
    expect((await open({ Cookie: "tt_session=" + "x".repeat(43), Origin: SITE })).status).toBe(401);
  });

  it("forged, malformed and huge cookie values are anonymous, never a 500", async () => {
    for (const value of ["", "x".repeat(43), "a.b.c", "%E0%A4%A", "x".repeat(8000), "../../etc"]) {
      const res = await api("/users/profile", `tt_session=${value}`);
      expect(res.status, value.slice(0, 20)).toBe(401);
      const home = await page("/", { headers: { Cookie: `tt_session=${value}` } });
      expect(home.status).toBe(200);
    }
  });
});

describe("sessions end on the server", () => {
  it("logout deletes the session: a copy of the cookie kept elsewhere stands for nobody", async () => {
    const a = await signUp();
    const cookie = await pageLogin(a.email, a.password);
    const other = await webSessionCookie(a.token);
    const res = await page("/logout", {
      method: "POST",
      headers: { ...FORM, Origin: SITE, Cookie: cookie },
      body: "",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Set-Cookie")).toMatch(/^tt_session=;.*Max-Age=0/);
    expect((await api("/users/profile", cookie)).status).toBe(401);
    const after = await page("/profile", { headers: { Cookie: cookie } });
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toContain("/login");
    // Another browser's session is untouched by a plain logout.
    expect((await api("/users/profile", other)).status).toBe(200);
  });

  it("log out everywhere, a new sessionVersion (password change, reset) and deactivation end every web session", async () => {
    const a = await signUp();
    const one = await webSessionCookie(a.token);
    const two = await webSessionCookie(a.token);
    expect((await api("/auth/logout-everywhere", one, { method: "POST" })).status).toBe(200);
    expect((await api("/users/profile", one)).status).toBe(401);
    expect((await api("/users/profile", two)).status).toBe(401);
    expect(await sessionsOf(a.uuid)).toBe(0);

    const b = await signUp();
    const kept = await webSessionCookie(b.token);
    // What a password change or reset does to the account (test/user-passwords.test.ts).
    await db(env).update(users).set({ sessionVersion: 1 }).where(eq(users.uuid, b.uuid)).run();
    expect((await api("/users/profile", kept)).status).toBe(401);

    const c = await signUp();
    const gone = await webSessionCookie(c.token);
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, c.uuid)).run();
    expect((await api("/users/profile", gone)).status).toBe(401);
  });

  it("an expired session is refused and the page drops its cookie", async () => {
    const a = await signUp();
    const cookie = await webSessionCookie(a.token);
    await db(env)
      .update(webSessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(webSessions.userUuid, a.uuid))
      .run();
    expect((await api("/users/profile", cookie)).status).toBe(401);
    const home = await page("/", { headers: { Cookie: cookie } });
    expect(home.headers.get("Set-Cookie")).toMatch(/tt_session=;.*Max-Age=0/);
  });

  it(`a user keeps at most ${MAX_WEB_SESSIONS_PER_USER} sessions: a sign-in loop ends the oldest, never grows the table`, async () => {
    const a = await signUp();
    const first = await webSessionCookie(a.token);
    const rest: string[] = [];
    for (let i = 0; i < MAX_WEB_SESSIONS_PER_USER + 4; i++)
      rest.push(await webSessionCookie(a.token));
    expect(await sessionsOf(a.uuid)).toBe(MAX_WEB_SESSIONS_PER_USER);
    expect((await api("/users/profile", first)).status).toBe(401);
    expect((await api("/users/profile", rest.at(-1)!)).status).toBe(200);
  });

  it("ending the current session needs one: a bearer token is told so, an anonymous call 401", async () => {
    const a = await signUp();
    const res = await user("/auth/web-sessions/current", { method: "DELETE", token: a.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("not a web session");
    expect((await user("/auth/web-sessions", { method: "POST" })).status).toBe(401);
  });
});

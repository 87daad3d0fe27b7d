import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../workers/app";
import type { Env } from "../workers/env";
import { DISCORD_FRAME_ANCESTORS } from "../workers/security-headers";
import { signUp, webSessionCookie } from "./helpers";
import { discordEnv, discordRoutes, FakeProvider, someone, stubProviders } from "./linked-helpers";

/**
 * The Discord Activity's web side (issue 16): which pages Discord may frame, the Activity's
 * posts and cookies coming through Discord's proxy origin, and the sign-in step that trades the
 * SDK's code (the provider stubbed at the fetch boundary) for a session cookie meant for
 * Discord's frame only.
 */
afterEach(() => vi.restoreAllMocks());

const SITE = "http://hangout.test";
const CLIENT_ID = "1300000000000000042";
const PROXY = `https://${CLIENT_ID}.discordsays.com`;
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

/** A web request to the Worker with `over` in its environment (as a deployment would set it). */
async function web(over: Partial<Env>, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${SITE}${path}`, {
      ...init,
      headers: { Host: "hangout.test", ...(init.headers as Record<string, string>) },
    }) as never,
    { ...env, ...over } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("framing", () => {
  it("the Activity's pages may be framed by Discord only; every other page by nobody", async () => {
    for (const path of ["/activity", "/activity?frame_id=1&instance_id=2&platform=desktop"]) {
      const res = await SELF.fetch(`${SITE}${path}`);
      const csp = res.headers.get("Content-Security-Policy") ?? "";
      expect(csp, path).toContain(`frame-ancestors ${DISCORD_FRAME_ANCESTORS}`);
      expect(csp).not.toContain("frame-ancestors 'none'");
      expect(res.headers.get("X-Frame-Options"), path).toBeNull();
      await res.body?.cancel();
    }
    expect(DISCORD_FRAME_ANCESTORS.split(" ")).toEqual([
      "https://discord.com",
      "https://ptb.discord.com",
      "https://canary.discord.com",
      "https://*.discordsays.com",
    ]);
    // The room inside the frame (a missing one answers 404, with the same framing rule).
    const room = await SELF.fetch(`${SITE}/activity/rooms/no-such-room-here`);
    expect(room.headers.get("Content-Security-Policy")).toContain(DISCORD_FRAME_ANCESTORS);
    await room.body?.cancel();
    for (const path of [
      "/",
      "/rooms",
      "/rooms/no-such-room-here",
      "/login",
      "/activityx",
      "/activit",
    ]) {
      const res = await SELF.fetch(`${SITE}${path}`);
      expect(res.headers.get("Content-Security-Policy"), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get("X-Frame-Options"), path).toBe("DENY");
      await res.body?.cancel();
    }
  }, 120_000); // nine pages rendered, the first one loading the Remix build
});

describe("Discord's proxy origin", () => {
  it("a post from our own Activity proxy is ours; another app's, or with Discord off, is cross-site", async () => {
    const a = await signUp();
    const body = new URLSearchParams({ email: a.email, password: a.password }).toString();
    const post = (over: Partial<Env>, origin: string) =>
      web(over, "/login", {
        method: "POST",
        headers: { ...FORM, Origin: origin },
        body,
        redirect: "manual",
      });
    const ours = await post({ DISCORD_CLIENT_ID: CLIENT_ID }, PROXY);
    expect(ours.status).toBe(302);
    expect(ours.headers.get("Set-Cookie")).toMatch(/^tt_session=/);
    for (const [over, origin] of [
      [{ DISCORD_CLIENT_ID: CLIENT_ID }, "https://1300000000000000043.discordsays.com"],
      [{ DISCORD_CLIENT_ID: CLIENT_ID }, `http://${CLIENT_ID}.discordsays.com`],
      [{ DISCORD_CLIENT_ID: undefined }, PROXY],
    ] as const) {
      const res = await post(over, origin);
      expect(res.status, origin).toBe(403);
      expect(res.headers.get("Set-Cookie")).toBeNull();
      await res.body?.cancel();
    }
    // A client's own X-Forwarded-Host cannot talk Remix into a cross-site action.
    const forged = await web({}, "/login", {
      method: "POST",
      headers: { ...FORM, Origin: SITE, "X-Forwarded-Host": "evil.example" },
      body,
      redirect: "manual",
    });
    expect(forged.status).toBe(302);
  });

  it("an API call with the session cookie counts from the proxy origin, not from elsewhere", async () => {
    const a = await signUp();
    const cookie = await webSessionCookie(a.token);
    const call = (origin: string) =>
      web({ DISCORD_CLIENT_ID: CLIENT_ID }, "/api/user-service/auth/session", {
        headers: { Cookie: cookie, Origin: origin },
      });
    const ok = await call(PROXY);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { user: { uuid: string } }).user.uuid).toBe(a.uuid);
    const other = await call("https://1300000000000000043.discordsays.com");
    expect(other.status).toBe(401);
    await other.body?.cancel();
  });
});

describe("the Activity's sign-in step", () => {
  it("trades the SDK's code at Discord, sets a partitioned SameSite=None session cookie and answers the guild's rooms", async () => {
    const fake = new FakeProvider();
    const over = { ...discordEnv(fake), DISCORD_CLIENT_ID: CLIENT_ID };
    stubProviders(discordRoutes(fake));
    const owner = await signUp();
    const guildId = String(1e17 + Math.floor(Math.random() * 1e16));
    const made = await SELF.fetch(`${SITE}/api/room-service/rooms/infrastructure`, {
      method: "POST",
      headers: { Authorization: `Bearer ${owner.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: `Activity room ${guildId.slice(-6)}` }),
    });
    const room = (await made.json()) as { slug: string };
    const bound = await SELF.fetch(`${SITE}/api/room-service/rooms/discord/${guildId}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${owner.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ roomId: room.slug }),
    });
    expect(bound.status).toBe(200);
    const { code } = fake.approve(
      `${fake.auth}/oauth2/authorize?client_id=${CLIENT_ID}`,
      someone(),
    );
    const send = (fields: Record<string, string>, origin = PROXY) =>
      web(over, "/activity.data", {
        method: "POST",
        headers: { ...FORM, Origin: origin },
        body: new URLSearchParams(fields).toString(),
      });
    const res = await send({ code, guildId });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/^tt_session=[\w-]{43};/);
    for (const part of ["HttpOnly", "Secure", "SameSite=None", "Partitioned"])
      expect(cookie.split("; ")).toContain(part);
    const text = await res.text();
    expect(text).toContain(room.slug);
    expect(text).toMatch(/"at-[^"]+"/); // Discord's access token, for the SDK's authenticate
    expect(text).not.toMatch(/rt-/); // never the refresh token
    // A code used once is refused; nothing is signed in.
    const replay = await send({ code, guildId });
    expect(replay.status).toBe(400);
    expect(replay.headers.get("Set-Cookie")).toBeNull();
    await replay.body?.cancel();
    // The same step posted from another site never reaches Discord.
    const calls = fake.tokenCalls.length;
    const evil = await send({ code: "x", guildId }, "https://evil.example");
    expect(evil.status).toBe(403);
    await evil.body?.cancel();
    expect(fake.tokenCalls.length).toBe(calls);
  });
});

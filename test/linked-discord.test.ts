import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { userEmails, users } from "../workers/db/schema";
import { LINK_MSG } from "../workers/user-service/linked-messages";
import { assign, avatarIdOf, makeAvatar, wear } from "./avatars-helpers";
import { admin, signUp, uniqueEmail, type TestAccount } from "./helpers";
import {
  discordEnv,
  discordRoutes,
  FakeProvider,
  linkRow,
  someone,
  startLink,
  stubProviders,
  us,
} from "./linked-helpers";

afterEach(() => vi.restoreAllMocks());

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});

function discord() {
  const fake = new FakeProvider();
  const over = discordEnv(fake);
  stubProviders(discordRoutes(fake));
  return { fake, over };
}

const discordEmails = (userId: number) =>
  db(env)
    .select()
    .from(userEmails)
    .where(and(eq(userEmails.userId, userId), eq(userEmails.type, "discord")))
    .all();

describe("POST /auth/discord-auth: sign in or sign up with Discord", () => {
  it("a new Discord person gets an account with a verified discord e-mail; the second time they sign in to it", async () => {
    const { fake, over } = discord();
    const who = someone({
      name: "Kim",
      email: `${crypto.randomUUID()}@discord.example`,
      verified: true,
    });
    // No account yet: the state is bound to nobody (the web page binds it to the browser).
    const s1 = await startLink(over, fake, "discord", undefined, who, "?intent=sign-in");
    expect(s1.url.searchParams.get("scope")).toBe("identify email");
    const first = await us(over, "/auth/discord-auth", {
      body: { code: s1.code, state: s1.state },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: true, tokenType: "user" });
    expect(first.body.user).toMatchObject({ nickname: "Kim", email: null, hasPassword: false });
    const user = await db(env)
      .select()
      .from(users)
      .where(eq(users.uuid, first.body.user.uuid))
      .get();
    const emails = await discordEmails(user!.id);
    expect(emails).toEqual([expect.objectContaining({ email: who.email, status: "VERIFIED" })]);
    // The session works.
    const me = await us(over, "/auth/session", { token: first.body.token });
    expect(me.body.user.uuid).toBe(first.body.user.uuid);
    const s2 = await startLink(over, fake, "discord", undefined, who, "?intent=sign-in");
    const again = await us(over, "/auth/discord-auth", {
      body: { code: s2.code, state: s2.state },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, user: { uuid: first.body.user.uuid } });
  });

  it("an unverified Discord e-mail is never recorded; the link still counts (placeholder under .invalid)", async () => {
    const { fake, over } = discord();
    const who = someone({ email: "not-proven@example.com", verified: false });
    const s = await startLink(over, fake, "discord", undefined, who, "?intent=sign-in");
    const res = await us(over, "/auth/discord-auth", { body: { code: s.code, state: s.state } });
    expect(res.status).toBe(201);
    const emails = await discordEmails(res.body.user.id);
    expect(emails.map((e) => e.email)).toEqual([`${who.id}@discord.invalid`]);
  });

  it("a Discord e-mail that is already an account's login is a 409, never a silent takeover", async () => {
    const { fake, over } = discord();
    const victim = await signUp();
    const who = someone({ email: victim.email, verified: true });
    const s = await startLink(over, fake, "discord", undefined, who, "?intent=sign-in");
    const res = await us(over, "/auth/discord-auth", { body: { code: s.code, state: s.state } });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(LINK_MSG.discordEmailTaken);
    expect(await linkRow(victim.id, "discord")).toHaveLength(0);
  });

  it("a link state cannot sign in, a sign-in state cannot link, and a replay is refused", async () => {
    const { fake, over } = discord();
    const a = await signUp();
    const link = await startLink(over, fake, "discord", a.token, someone());
    const asSignIn = await us(over, "/auth/discord-auth", {
      body: { code: link.code, state: link.state },
    });
    expect(asSignIn.status).toBe(400);
    const signIn = await startLink(over, fake, "discord", undefined, someone(), "?intent=sign-in");
    const asLink = await us(over, "/auth/link-discord", {
      token: a.token,
      body: { code: signIn.code, state: signIn.state },
    });
    expect(asLink.status).toBe(400);
    expect(fake.tokenCalls).toHaveLength(0);
    const ok = await us(over, "/auth/discord-auth", {
      body: { code: signIn.code, state: signIn.state },
    });
    expect(ok.status).toBe(201);
    const replay = await us(over, "/auth/discord-auth", {
      body: { code: signIn.code, state: signIn.state },
    });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe(LINK_MSG.badState);
  });

  it("sign-in is only for Discord, and bad input is a 400", async () => {
    const { over } = discord();
    expect((await us(over, "/auth/spotify/authorize-url?intent=sign-in")).body.message).toBe(
      LINK_MSG.signInOnlyDiscord,
    );
    for (const body of [{}, { code: "", state: "s" }, { code: "c", state: "x".repeat(300) }, []])
      expect((await us(over, "/auth/discord-auth", { body })).status).toBe(400);
  });
});

describe("POST /auth/link-discord", () => {
  it("links Discord to the signed-in account and unlocks Discord-only avatars", async () => {
    const { fake, over } = discord();
    const a = await signUp();
    const avatar = await makeAvatar(boss.token, { discordOnly: true });
    expect((await wear(a.token, avatar.slug)).status).toBe(403);
    const s = await startLink(over, fake, "discord", a.token, someone({ name: "Kimmy" }));
    const res = await us(over, "/auth/link-discord", {
      token: a.token,
      body: { code: s.code, state: s.state },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: "discord", linked: true, displayName: "Kimmy" });
    expect((await wear(a.token, avatar.slug)).status).toBe(200);
    // Unlinking takes the discord e-mail with it: the avatar locks again.
    const off = await us(over, "/linked-accounts/discord", { token: a.token, method: "DELETE" });
    expect(off.body.removed).toBe(true);
    expect(await discordEmails(a.id)).toHaveLength(0);
    expect((await wear(a.token, avatar.slug)).status).toBe(403);
  });

  it("unlinking takes off a worn Discord-only avatar (back to the default); an assigned one or a public one stays", async () => {
    const { fake, over } = discord();
    const [a, b, c] = [await signUp(), await signUp(), await signUp()];
    const only = await makeAvatar(boss.token, { discordOnly: true });
    const open = await makeAvatar(boss.token, {});
    expect((await assign(boss.token, only.slug, b.uuid)).status).toBeLessThan(300);
    for (const p of [a, b, c]) {
      const s = await startLink(over, fake, "discord", p.token, someone());
      expect((await us(over, "/auth/link-discord", { token: p.token, body: s })).status).toBe(200);
    }
    expect((await wear(a.token, only.slug)).status).toBe(200);
    expect((await wear(b.token, only.slug)).status).toBe(200);
    expect((await wear(c.token, open.slug)).status).toBe(200);
    for (const p of [a, b, c])
      expect(
        (await us(over, "/linked-accounts/discord", { token: p.token, method: "DELETE" })).body
          .removed,
      ).toBe(true);
    expect(await avatarIdOf(a.uuid)).toBeNull();
    expect(await avatarIdOf(b.uuid)).toBe(only.slug);
    expect(await avatarIdOf(c.uuid)).toBe(open.slug);
  });

  it("a Discord account already linked to someone else is a 409; 401 without a token", async () => {
    const { fake, over } = discord();
    const [a, b] = [await signUp(), await signUp()];
    const who = someone();
    const s1 = await startLink(over, fake, "discord", a.token, who);
    expect((await us(over, "/auth/link-discord", { token: a.token, body: s1 })).status).toBe(200);
    const s2 = await startLink(over, fake, "discord", b.token, who);
    const res = await us(over, "/auth/link-discord", {
      token: b.token,
      body: { code: s2.code, state: s2.state },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(LINK_MSG.linkedElsewhere("Discord"));
    expect(await discordEmails(b.id)).toHaveLength(0);
    expect((await us(over, "/auth/link-discord", { body: { code: "c", state: "s" } })).status).toBe(
      401,
    );
  });

  it("an account that signs in only with Discord cannot unlink it (409)", async () => {
    const { fake, over } = discord();
    const s = await startLink(over, fake, "discord", undefined, someone(), "?intent=sign-in");
    const made = await us(over, "/auth/discord-auth", { body: { code: s.code, state: s.state } });
    const res = await us(over, "/linked-accounts/discord", {
      token: made.body.token,
      method: "DELETE",
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(LINK_MSG.discordOnlyWayIn);
    expect(await linkRow(made.body.user.id, "discord")).toHaveLength(1);
  });
});

describe("POST /auth/exchange-code (Embedded App SDK)", () => {
  it("trades the SDK's code for Discord's access token and our session; a replayed code is a 400", async () => {
    const { fake, over } = discord();
    const who = someone({ email: uniqueEmail("dsc"), verified: true });
    // The SDK's authorize has no redirect or state: the code comes straight to the frame.
    const { code } = fake.approve(`${fake.auth}/oauth2/authorize?client_id=x`, who);
    const res = await us(over, "/auth/exchange-code", { body: { code } });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^at-/);
    expect(res.body.token).toBeTruthy();
    expect(JSON.stringify(res.body)).not.toMatch(/rt-/);
    expect(fake.tokenCalls[0].has("redirect_uri")).toBe(false);
    const replay = await us(over, "/auth/exchange-code", { body: { code } });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe(LINK_MSG.codeRefused("Discord"));
    expect((await us(over, "/auth/exchange-code", { body: {} })).status).toBe(400);
  });

  it("answers 503 when Discord is not configured, and the log-in page is told not to offer it", async () => {
    expect((await us({}, "/auth/sign-in-providers")).body).toEqual({ discord: false });
    expect((await us(discord().over, "/auth/sign-in-providers")).body).toEqual({ discord: true });
    const res = await us({}, "/auth/exchange-code", { body: { code: "c" } });
    expect(res.status).toBe(503);
    expect(res.body.message).toBe(LINK_MSG.notConfigured("Discord"));
  });
});

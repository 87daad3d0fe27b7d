import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { importSPKI, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { oneTimeTokens, users } from "../workers/db/schema";
import { sha256 } from "../workers/lib/crypto";
import { LOGIN_LIMITS } from "../workers/user-service/auth";
import { MSG } from "../workers/user-service/messages";
import { MAX_BOTS_PER_OWNER } from "../workers/user-service/sign-up";
import {
  accountWithRoles,
  admin,
  countRows,
  guestToken,
  latestCode,
  signUp,
  uniqueEmail,
  uniqueIp,
  user,
} from "./helpers";

describe("POST /users/sign-up", () => {
  it("makes an account, signs the user in and e-mails a verification code", async () => {
    const email = uniqueEmail();
    const res = await user("/users/sign-up", {
      ip: uniqueIp(),
      body: { email: email.toUpperCase(), password: "correct horse battery", nickname: "DJ Sam" },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      email,
      nickname: "DJ Sam",
      emailVerified: false,
      roles: ["user"],
      color: "562DF9",
    });
    expect(res.body.user).not.toHaveProperty("passwordHash");
    const session = await user("/auth/session", { token: res.body.token });
    expect(session.body).toMatchObject({ tokenType: "user", isLoggedIn: true, user: { email } });
    expect(await latestCode(email)).toMatch(/^\d{6}$/);
  });

  it("never stores the password in plain text", async () => {
    const a = await signUp({ password: "plain text never stored" });
    const row = await db(env).select().from(users).where(eq(users.uuid, a.uuid)).get();
    expect(row!.passwordHash).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(row!.passwordHash).not.toContain("plain text");
  });

  it("refuses a missing e-mail or password with the catalogue's message and writes nothing", async () => {
    const before = await countRows("users");
    for (const body of [
      { password: "abcdefgh1" },
      { email: uniqueEmail() },
      {},
      { email: "", password: "" },
    ]) {
      const res = await user("/users/sign-up", { ip: uniqueIp(), body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        statusCode: 400,
        error: "Bad Request",
        message: MSG.signUpMissing,
      });
    }
    const bad = await user("/users/sign-up", {
      ip: uniqueIp(),
      body: { email: "not-an-email", password: "short" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining([
        expect.stringContaining("email"),
        expect.stringContaining("password"),
      ]),
    );
    const notJson = await user("/users/sign-up", {
      ip: uniqueIp(),
      body: "{oops",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(await countRows("users")).toBe(before);
  });

  it("refuses an e-mail that is already registered (any case), even when two sign-ups race", async () => {
    const email = uniqueEmail();
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        user("/users/sign-up", {
          ip: uniqueIp(),
          body: { email, password: "correct horse battery" },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403]);
    const again = await user("/users/sign-up", {
      ip: uniqueIp(),
      body: { email: email.toUpperCase(), password: "another password" },
    });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(MSG.emailTaken);
  });
});

describe("POST /auth/login", () => {
  it("signs in with the right password and refuses the wrong one with the catalogue's message", async () => {
    const a = await signUp();
    const ok = await user("/auth/login", { body: { email: a.email, password: a.password } });
    expect(ok.status).toBe(200);
    expect(ok.body.user.uuid).toBe(a.uuid);
    const wrong = await user("/auth/login", {
      body: { email: a.email, password: "wrong password" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe(MSG.badLogin);
    const nobody = await user("/auth/login", {
      body: { email: uniqueEmail("nobody"), password: "whatever1" },
    });
    expect(nobody.status).toBe(401);
    expect(nobody.body.message).toBe(MSG.badLogin);
  });

  it("refuses bad input with 400", async () => {
    expect((await user("/auth/login", { body: { email: "x" } })).status).toBe(400);
    expect((await user("/auth/login", { body: [] })).status).toBe(400);
  });

  it("rate-limits failed logins per e-mail from one network: 429 even with the right password, then a message", async () => {
    const a = await signUp();
    const ip = { "CF-Connecting-IP": `10.0.0.${Math.floor(Math.random() * 250)}` };
    const fails = await Promise.all(
      Array.from({ length: LOGIN_LIMITS.perEmail }, () =>
        user("/auth/login", { body: { email: a.email, password: "nope nope" }, headers: ip }),
      ),
    );
    expect(fails.every((r) => r.status === 401)).toBe(true);
    const blocked = await user("/auth/login", {
      body: { email: a.email, password: a.password },
      headers: ip,
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(
      /^Too many failed login attempts\. Please try again in \d+ minutes?\.$/,
    );
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("holds the per-e-mail-and-network limit under parallel guesses: 20 at once get 5 password checks, the rest 429", async () => {
    const a = await signUp();
    const ip = { "CF-Connecting-IP": `10.1.0.${Math.floor(Math.random() * 250)}` };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        user("/auth/login", { body: { email: a.email, password: "parallel guess" }, headers: ip }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_LIMITS.perEmail);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - LOGIN_LIMITS.perEmail);
  });

  it("counts only failures against the IP: successful logins from one address never block it", async () => {
    const a = await signUp();
    const ip = { "CF-Connecting-IP": "192.0.2.99" };
    for (let i = 0; i < LOGIN_LIMITS.perIp + 2; i++) {
      expect(
        (await user("/auth/login", { body: { email: a.email, password: a.password }, headers: ip }))
          .status,
      ).toBe(200);
    }
  });

  it("rate-limits failed logins per IP across many e-mails", async () => {
    const ip = { "CF-Connecting-IP": "192.0.2.77" };
    for (let i = 0; i < LOGIN_LIMITS.perIp; i++)
      await user("/auth/login", {
        body: { email: uniqueEmail("spray"), password: "guess guess" },
        headers: ip,
      });
    const a = await signUp();
    const blocked = await user("/auth/login", {
      body: { email: a.email, password: a.password },
      headers: ip,
    });
    expect(blocked.status).toBe(429);
    const otherIp = await user("/auth/login", {
      body: { email: a.email, password: a.password },
      headers: { "CF-Connecting-IP": "192.0.2.78" },
    });
    expect(otherIp.status).toBe(200);
  });
});

describe("GET /auth/session, /auth/pub-key, /auth/guest", () => {
  it("session needs a token", async () => {
    expect((await user("/auth/session")).status).toBe(401);
  });

  it("tokens are RS256 and verify with the published public key", async () => {
    const a = await signUp();
    const { body } = await user("/auth/pub-key");
    expect(body.algorithm).toBe("RS256");
    const key = await importSPKI(body.publicKey, "RS256");
    const { payload, protectedHeader } = await jwtVerify(a.token, key);
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({ sub: a.uuid, type: "user", roles: ["user"] });
  });

  it("a guest token is a guest session, and guests cannot use account routes", async () => {
    const token = await guestToken();
    const session = await user("/auth/session", { token });
    expect(session.body).toMatchObject({ tokenType: "guest", isLoggedIn: false });
    expect(session.body.user.nickname).toMatch(/^Guest /);
    const magic = await user("/auth/magic-link", { token });
    expect(magic.status).toBe(403);
  });

  it("a token of a deactivated account stops working at once", async () => {
    const a = await signUp();
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, a.uuid));
    expect((await user("/auth/session", { token: a.token })).status).toBe(401);
  });
});

describe("magic links", () => {
  it("makes a link of the spec's shape that signs in once", async () => {
    const a = await signUp();
    const made = await user("/auth/magic-link?target=subscribe-plan%2Fpro", { token: a.token });
    expect(made.status).toBe(200);
    const m = made.body.url.match(/^http:\/\/hangout\.test\/magic-link\/([\w-]+)\/(.+)$/);
    expect(m).not.toBeNull();
    expect(decodeURIComponent(m[2])).toBe("subscribe-plan/pro");
    const first = await user("/auth/validate-magic-link", { body: { token: m[1] } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ target: "subscribe-plan/pro", user: { uuid: a.uuid } });
    expect((await user("/auth/session", { token: first.body.token })).status).toBe(200);
    const second = await user("/auth/validate-magic-link", { body: { token: m[1] } });
    expect(second.status).toBe(401);
    expect(second.body.message).toBe(MSG.magicLinkUsed);
  });

  it("exchanges a link only once when two tabs race", async () => {
    const a = await signUp();
    const token = (
      await user("/auth/magic-link?target=%2Fprofile", { token: a.token })
    ).body.url.split("/")[4];
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => user("/auth/validate-magic-link", { body: { token } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("refuses expired and unknown links clearly", async () => {
    const a = await signUp();
    const token = (await user("/auth/magic-link", { token: a.token })).body.url.split("/")[4];
    await db(env)
      .update(oneTimeTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(oneTimeTokens.tokenHash, await sha256(token)));
    const expired = await user("/auth/validate-magic-link", { body: { token } });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe(MSG.magicLinkExpired);
    const unknown = await user("/auth/validate-magic-link", { body: { token: "made-up" } });
    expect(unknown.body.message).toBe(MSG.magicLinkInvalid);
    expect((await user("/auth/validate-magic-link", { body: {} })).status).toBe(400);
  });

  it("refuses targets off our site (no open redirect) and needs a token", async () => {
    const a = await signUp();
    for (const t of [
      "https://evil.example",
      "//evil.example",
      "subscribe-plan/",
      "javascript:alert(1)",
      // Off-site once decoded, as the web page decodes a target before following it.
      "/%2F%2Fevil.example",
      "%2F%2Fevil.example",
      "/%252F%252Fevil.example",
      "/%5Cevil.example",
      "/%E0%A4%A",
    ]) {
      const res = await user(`/auth/magic-link?target=${encodeURIComponent(t)}`, {
        token: a.token,
      });
      expect(res.status, t).toBe(400);
    }
    expect((await user("/auth/magic-link")).status).toBe(401);
  });

  it("refuses targets with control characters, which browsers drop from a URL (/<TAB>/evil is //evil)", async () => {
    const a = await signUp();
    for (const t of [
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/%09/evil.example",
      "/a\u0000b",
    ]) {
      const res = await user(`/auth/magic-link?target=${encodeURIComponent(t)}`, {
        token: a.token,
      });
      expect(res.status, JSON.stringify(t)).toBe(400);
    }
    expect(
      (
        await user(`/auth/magic-link?target=${encodeURIComponent("/rooms/a b?x=1#top")}`, {
          token: a.token,
        })
      ).status,
    ).toBe(200);
  });
});

/** A person whose login address is verified (as the mailed code would make it). */
async function verifiedPerson() {
  const a = await signUp();
  await db(env).update(users).set({ emailVerified: true }).where(eq(users.uuid, a.uuid));
  return a;
}
const tagOf = (email: string, tag: string) => email.replace("@", `+${tag}@`);

describe("bots", () => {
  it("a user makes a bot that logs in and gets a long-lived bot token", async () => {
    const owner = await verifiedPerson();
    const botEmail = tagOf(owner.email, "bot");
    const made = await user("/users/sign-up-bot", {
      token: owner.token,
      body: { email: botEmail, password: "beep boop beep", nickname: "Botty" },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ roles: ["bot"], ownerUuid: owner.uuid, isBot: true });
    const login = await user("/auth/login", {
      body: { email: botEmail, password: "beep boop beep" },
    });
    const bt = await user("/users/bot-token", { token: login.body.token });
    expect(bt.status).toBe(200);
    const session = await user("/auth/session", { token: bt.body.token });
    expect(session.body.tokenType).toBe("bot");
    expect(new Date(bt.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(300 * 24 * 3600_000);
  });

  it("refuses a bot token to a person, a bot sign-up without a token, by a guest, or with bad input", async () => {
    const person = await signUp();
    const r = await user("/users/bot-token", { token: person.token });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(MSG.notABot);
    expect(
      (await user("/users/sign-up-bot", { body: { email: uniqueEmail(), password: "12345678" } }))
        .status,
    ).toBe(401);
    expect(
      (
        await user("/users/sign-up-bot", {
          token: await guestToken(),
          body: { email: uniqueEmail(), password: "12345678" },
        })
      ).status,
    ).toBe(403);
    expect(
      (await user("/users/sign-up-bot", { token: person.token, body: { email: "nope" } })).status,
    ).toBe(400);
    expect((await user("/users/bot-token")).status).toBe(401);
  });

  it("a bot cannot claim someone else's address (squatting) nor get a verified one it has not proven", async () => {
    const owner = await verifiedPerson();
    const victim = uniqueEmail("victim");
    for (const email of [
      victim,
      tagOf(victim, "x"),
      `${owner.email.split("@")[0]}+x@other.example`,
    ]) {
      const res = await user("/users/sign-up-bot", {
        token: owner.token,
        body: { email, password: "beep boop beep" },
      });
      expect(res.status, email).toBe(400);
      expect(res.body.message).toBe(MSG.botEmailNotOwners(owner.email));
    }
    // The victim's address is still theirs to sign up with.
    expect(
      (
        await user("/users/sign-up", {
          ip: uniqueIp(),
          body: { email: victim, password: "mine mine mine" },
        })
      ).status,
    ).toBe(201);
    // An owner who has not proven their own address makes no bots at all.
    const unverified = await signUp();
    const res = await user("/users/sign-up-bot", {
      token: unverified.token,
      body: { email: tagOf(unverified.email, "bot"), password: "beep boop beep" },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.botOwnerUnverified);
  });

  it(`one person owns at most ${MAX_BOTS_PER_OWNER} bots, even when 15 sign-ups race`, async () => {
    const owner = await verifiedPerson();
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        user("/users/sign-up-bot", {
          token: owner.token,
          body: { email: tagOf(owner.email, `b${i}`), password: "beep boop beep" },
        }),
      ),
    );
    const made = answers.filter((a) => a.status === 201).length;
    expect(made).toBeLessThanOrEqual(MAX_BOTS_PER_OWNER);
    expect(
      answers
        .filter((a) => a.status === 403)
        .every((a) => a.body.message === MSG.tooManyBots(MAX_BOTS_PER_OWNER)),
    ).toBe(true);
    const owned = await db(env).$count(users, eq(users.ownerUuid, owner.uuid));
    expect(owned).toBe(made);
    // Topped up one at a time, it stops exactly at the limit.
    for (let i = 0; owned + i < MAX_BOTS_PER_OWNER + 2; i++)
      await user("/users/sign-up-bot", {
        token: owner.token,
        body: { email: tagOf(owner.email, `c${i}`), password: "beep boop beep" },
      });
    expect(await db(env).$count(users, eq(users.ownerUuid, owner.uuid))).toBe(MAX_BOTS_PER_OWNER);
  });
});

describe("POST /users/admin/sign-up", () => {
  it("an admin makes an account whose e-mail needs no verification", async () => {
    const boss = await admin();
    const email = uniqueEmail("staff");
    const res = await user("/users/admin/sign-up", {
      token: boss.token,
      body: { email, password: "welcome aboard", roles: ["user", "moderator"] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, emailVerified: true, roles: ["user", "moderator"] });
    const row = await env.DB.prepare("select status from user_emails where email = ?")
      .bind(email)
      .first<{ status: string }>();
    expect(row?.status).toBe("CREATED_BY_ADMIN");
    expect(
      (await user("/auth/login", { body: { email, password: "welcome aboard" } })).status,
    ).toBe(200);
  });

  it("only a superUser makes an admin or a superUser; an admin's attempt is 403 and makes nothing", async () => {
    const boss = await admin();
    for (const roles of [["user", "superUser"], ["user", "admin"], ["admin"]]) {
      const email = uniqueEmail("coup");
      const res = await user("/users/admin/sign-up", {
        token: boss.token,
        body: { email, password: "welcome aboard", roles },
      });
      expect(res.status, roles.join()).toBe(403);
      expect(res.body.message).toBe(MSG.onlySuperUserMakesAdmins);
      expect(
        (await user("/auth/login", { body: { email, password: "welcome aboard" } })).status,
      ).toBe(401);
    }
    const top = await accountWithRoles(["user", "superUser"]);
    const made = await user("/users/admin/sign-up", {
      token: top.token,
      body: { email: uniqueEmail("admin"), password: "welcome aboard", roles: ["user", "admin"] },
    });
    expect(made.status).toBe(201);
    expect(made.body.roles).toEqual(["user", "admin"]);
  });

  it("uses the catalogue's messages for missing fields and a taken e-mail", async () => {
    const boss = await admin();
    const missing = await user("/users/admin/sign-up", {
      token: boss.token,
      body: { email: uniqueEmail() },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe(MSG.signUpMissing);
    const taken = await user("/users/admin/sign-up", {
      token: boss.token,
      body: { email: boss.email, password: "whatever1" },
    });
    expect(taken.status).toBe(403);
    expect(taken.body.message).toBe(MSG.emailTaken);
  });

  it("is refused to a plain user (403), a moderator (403) and without a token (401)", async () => {
    const body = { email: uniqueEmail(), password: "welcome aboard" };
    const before = await countRows("users");
    expect((await user("/users/admin/sign-up", { body })).status).toBe(401);
    expect(
      (await user("/users/admin/sign-up", { token: (await signUp()).token, body })).status,
    ).toBe(403);
    const mod = await accountWithRoles(["user", "moderator"]);
    expect((await user("/users/admin/sign-up", { token: mod.token, body })).status).toBe(403);
    expect(await countRows("users")).toBe(before + 2);
  });
});

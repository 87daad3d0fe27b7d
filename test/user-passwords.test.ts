import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { oneTimeTokens, userEmails, users } from "../workers/db/schema";
import { sha256 } from "../workers/lib/crypto";
import { MSG } from "../workers/user-service/messages";
import {
  CHANGE_PASSWORD_LIMIT,
  RESET_MAIL_GAP_MS,
  RESET_TOKEN_TTL_MS,
} from "../workers/user-service/passwords";
import {
  accountWithRoles,
  admin,
  countRows,
  guestToken,
  latestCode,
  outbox,
  signUp,
  uniqueEmail,
  user,
  type TestAccount,
} from "./helpers";

const NEW_PASSWORD = "a brand new passphrase";
const messages = (body: { message: string | string[] }) => [body.message].flat();
// Each login comes from its own address so the per-IP login limit never interferes.
let ip = 0;
const login = (email: string, password: string) =>
  user("/auth/login", {
    body: { email, password },
    headers: { "CF-Connecting-IP": `10.9.${ip >> 8}.${ip++ & 255}` },
  });
const sessionStatus = async (token: string) => (await user("/auth/session", { token })).status;
const userRow = (uuid: string) => db(env).select().from(users).where(eq(users.uuid, uuid)).get();

/** A signed-up account whose login e-mail is verified (change-password needs that). */
async function verifiedAccount(): Promise<TestAccount> {
  const a = await signUp();
  const res = await user("/users/emails/verify", {
    token: a.token,
    body: { email: a.email, code: await latestCode(a.email) },
  });
  expect(res.status).toBe(201);
  return a;
}

/** Asks for a reset link and returns the token in the mail. */
async function resetToken(email: string, mails = 1): Promise<string> {
  expect((await user("/users/forgot-password", { body: { email } })).status).toBe(201);
  const mail = (await outbox(email, mails)).find((m) => m.subject.includes("Reset"))!;
  const m = mail.text.match(/\/reset-password\?token=([\w-]+)/);
  expect(m).not.toBeNull();
  return m![1];
}

describe("POST /users/change-password", () => {
  it("changes the password: old token and old password stop working, the answer signs the caller in", async () => {
    const a = await verifiedAccount();
    const res = await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: NEW_PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      token: expect.any(String),
      tokenType: "user",
      user: { uuid: a.uuid },
    });
    expect(await sessionStatus(a.token)).toBe(401);
    expect(await sessionStatus(res.body.token)).toBe(200);
    expect((await login(a.email, a.password)).status).toBe(401);
    expect((await login(a.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("also voids magic links issued before the change", async () => {
    const a = await verifiedAccount();
    const link = await user("/auth/magic-link", { token: a.token });
    const token = link.body.url.split("/magic-link/")[1].split("/")[0];
    await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: NEW_PASSWORD },
    });
    expect((await user("/auth/validate-magic-link", { body: { token } })).status).toBe(401);
  });

  it("refuses a wrong current password or an unverified e-mail with the catalogue's 401", async () => {
    const a = await verifiedAccount();
    const wrong = await user("/users/change-password", {
      token: a.token,
      body: { password: "not my password", newPassword: NEW_PASSWORD },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      statusCode: 401,
      message: MSG.changePasswordRefused,
      error: "Unauthorized",
    });
    const unverified = await signUp();
    const res = await user("/users/change-password", {
      token: unverified.token,
      body: { password: unverified.password, newPassword: NEW_PASSWORD },
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(MSG.changePasswordRefused);
    // Nothing changed for either.
    expect((await login(a.email, a.password)).status).toBe(200);
    expect((await login(unverified.email, unverified.password)).status).toBe(200);
    expect(await sessionStatus(unverified.token)).toBe(200);
  });

  it("refuses the same password with 400 and keeps the session", async () => {
    const a = await verifiedAccount();
    const res = await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: a.password },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(MSG.samePassword);
    expect(await sessionStatus(a.token)).toBe(200);
  });

  it("limits wrong current passwords: after five, even the right one waits (429)", async () => {
    const a = await verifiedAccount();
    for (let i = 0; i < CHANGE_PASSWORD_LIMIT.limit; i++) {
      expect(
        (
          await user("/users/change-password", {
            token: a.token,
            body: { password: `guess number ${i}`, newPassword: NEW_PASSWORD },
          })
        ).status,
      ).toBe(401);
    }
    const res = await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: NEW_PASSWORD },
    });
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(
      /^Too many wrong passwords\. Please try again in \d+ minutes?\.$/,
    );
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it("holds the limit under parallel guesses: 20 at once get 5 password checks, the rest 429", async () => {
    const a = await verifiedAccount();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        user("/users/change-password", {
          token: a.token,
          body: { password: `parallel guess ${i}`, newPassword: NEW_PASSWORD },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(CHANGE_PASSWORD_LIMIT.limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - CHANGE_PASSWORD_LIMIT.limit);
  });

  it("refuses bad input with 400 and a message, and changes nothing", async () => {
    const a = await verifiedAccount();
    const before = (await userRow(a.uuid))!;
    for (const body of [
      {},
      { password: a.password },
      { password: a.password, newPassword: "short" },
      { password: "", newPassword: NEW_PASSWORD },
      { password: 1, newPassword: 2 },
    ]) {
      const res = await user("/users/change-password", { token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    const short = await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: "short" },
    });
    expect(short.body.message).toBe("newPassword must be at least 8 characters");
    const after = (await userRow(a.uuid))!;
    expect(after).toMatchObject({
      passwordHash: before.passwordHash,
      sessionVersion: before.sessionVersion,
    });
  });

  it("needs an account token: 401 without, 403 for a guest", async () => {
    const body = { password: "whatever1", newPassword: NEW_PASSWORD };
    expect((await user("/users/change-password", { body })).status).toBe(401);
    expect((await user("/users/change-password", { body, token: await guestToken() })).status).toBe(
      403,
    );
  });
});

describe("POST /users/forgot-password", () => {
  it("mails an existing account a one-hour, one-time link and keeps only the token's hash", async () => {
    const a = await signUp();
    const res = await user("/users/forgot-password", { body: { email: a.email.toUpperCase() } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: MSG.forgotPasswordSent });
    const [mail] = await outbox(a.email, 2);
    expect(mail.text).toContain(`${env.PUBLIC_HOST}/reset-password?token=`);
    const token = mail.text.match(/token=([\w-]+)/)![1];
    const row = await db(env)
      .select()
      .from(oneTimeTokens)
      .where(eq(oneTimeTokens.tokenHash, await sha256(token)))
      .get();
    expect(row).toMatchObject({ kind: "password-reset", userId: a.id, usedAt: null });
    expect(row!.expiresAt - Date.now()).toBeGreaterThan(RESET_TOKEN_TTL_MS - 60_000);
    expect(row!.expiresAt - Date.now()).toBeLessThanOrEqual(RESET_TOKEN_TTL_MS);
  });

  it("answers the same for an unknown e-mail and stores nothing", async () => {
    const before = await countRows("one_time_tokens");
    const res = await user("/users/forgot-password", { body: { email: uniqueEmail("nobody") } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: MSG.forgotPasswordSent });
    expect(await countRows("one_time_tokens")).toBe(before);
  });

  it("sends at most one mail a minute per account, silently", async () => {
    const a = await signUp();
    const results = await Promise.all(
      [1, 2, 3].map(() => user("/users/forgot-password", { body: { email: a.email } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    const tokens = () =>
      db(env)
        .select()
        .from(oneTimeTokens)
        .where(and(eq(oneTimeTokens.userId, a.id), eq(oneTimeTokens.kind, "password-reset")))
        .all();
    expect(await tokens()).toHaveLength(1);
    await env.DB.prepare("update one_time_tokens set created_at = created_at - ? where user_id = ?")
      .bind(RESET_MAIL_GAP_MS, a.id)
      .run();
    await user("/users/forgot-password", { body: { email: a.email } });
    expect(await tokens()).toHaveLength(2);
    // The sign-up code mail plus two reset mails.
    expect(await outbox(a.email, 3)).toHaveLength(3);
  });

  it("refuses bad input with 400 and stores nothing", async () => {
    const before = await countRows("one_time_tokens");
    for (const body of [{}, { email: "nope" }, { email: null }]) {
      const res = await user("/users/forgot-password", { body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0]).toMatch(/email/);
    }
    expect(await countRows("one_time_tokens")).toBe(before);
  });

  it("is public, but a forged token is still 401", async () => {
    const a = await signUp();
    expect(
      (
        await user("/users/forgot-password", {
          body: { email: a.email },
          token: await guestToken(),
        })
      ).status,
    ).toBe(201);
    expect(
      (await user("/users/forgot-password", { body: { email: a.email }, token: "forged.token.x" }))
        .status,
    ).toBe(401);
  });
});

describe("POST /users/reset-password", () => {
  it("sets the new password once, ends old sessions and verifies the login e-mail", async () => {
    const a = await signUp();
    const token = await resetToken(a.email, 2);
    const res = await user("/users/reset-password", { body: { token, password: NEW_PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: MSG.passwordReset });
    expect(await sessionStatus(a.token)).toBe(401);
    expect((await login(a.email, a.password)).status).toBe(401);
    const fresh = await login(a.email, NEW_PASSWORD);
    expect(fresh.status).toBe(200);
    expect(fresh.body.user.emailVerified).toBe(true);
    const [row] = await db(env)
      .select()
      .from(userEmails)
      .where(eq(userEmails.email, a.email))
      .all();
    expect(row.status).toBe("VERIFIED");
    const again = await user("/users/reset-password", {
      body: { token, password: "yet another password" },
    });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(MSG.resetRefused);
  });

  it("lets only one of two racing resets with the same link through", async () => {
    const a = await signUp();
    const token = await resetToken(a.email, 2);
    const results = await Promise.all(
      ["first password!", "second password!"].map((password) =>
        user("/users/reset-password", { body: { token, password } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
  });

  it("refuses an unknown or expired token with the catalogue's 403", async () => {
    const unknown = await user("/users/reset-password", {
      body: { token: "no-such-token", password: NEW_PASSWORD },
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual({
      statusCode: 403,
      message: MSG.resetRefused,
      error: "Forbidden",
    });
    const a = await signUp();
    const token = await resetToken(a.email, 2);
    await env.DB.prepare("update one_time_tokens set expires_at = ? where token_hash = ?")
      .bind(Date.now() - 1, await sha256(token))
      .run();
    expect(
      (await user("/users/reset-password", { body: { token, password: NEW_PASSWORD } })).status,
    ).toBe(403);
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it("refuses the old password with 400 and leaves the link usable", async () => {
    const a = await signUp();
    const token = await resetToken(a.email, 2);
    const same = await user("/users/reset-password", { body: { token, password: a.password } });
    expect(same.status).toBe(400);
    expect(same.body.message).toBe(MSG.samePassword);
    expect(
      (await user("/users/reset-password", { body: { token, password: NEW_PASSWORD } })).status,
    ).toBe(201);
  });

  it("refuses bad input with 400 and does not spend the link", async () => {
    const a = await signUp();
    const token = await resetToken(a.email, 2);
    for (const body of [
      {},
      { token },
      { token, password: "short" },
      { token: "", password: NEW_PASSWORD },
      { token: 5, password: NEW_PASSWORD },
    ]) {
      const res = await user("/users/reset-password", { body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    const row = await db(env)
      .select()
      .from(oneTimeTokens)
      .where(eq(oneTimeTokens.tokenHash, await sha256(token)))
      .get();
    expect(row!.usedAt).toBeNull();
    expect(await sessionStatus(a.token)).toBe(200);
  });

  it("is public, but a forged token is still 401", async () => {
    const res = await user("/users/reset-password", {
      body: { token: "x", password: NEW_PASSWORD },
      token: "forged.token.x",
    });
    expect(res.status).toBe(401);
  });
});

describe("POST /users/set-password", () => {
  /** An account without a password (as one made through Discord would be). */
  async function passwordless() {
    const a = await signUp();
    await db(env).update(users).set({ passwordHash: null }).where(eq(users.uuid, a.uuid));
    return a;
  }

  it("sets the first password; the account can then log in with it", async () => {
    const a = await passwordless();
    const res = await user("/users/set-password", {
      token: a.token,
      body: { password: NEW_PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ uuid: a.uuid, hasPassword: true });
    expect((await login(a.email, NEW_PASSWORD)).status).toBe(200);
    expect(await sessionStatus(a.token)).toBe(200);
  });

  it("refuses an account that already has a password", async () => {
    const a = await signUp();
    const res = await user("/users/set-password", {
      token: a.token,
      body: { password: NEW_PASSWORD },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.passwordAlreadySet);
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it("refuses bad input with 400 and sets nothing", async () => {
    const a = await passwordless();
    for (const body of [{}, { password: "short" }, { password: 12345678 }]) {
      const res = await user("/users/set-password", { token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0]).toMatch(/password/);
    }
    expect((await userRow(a.uuid))!.passwordHash).toBeNull();
  });

  it("needs an account token: 401 without, 403 for a guest", async () => {
    expect((await user("/users/set-password", { body: { password: NEW_PASSWORD } })).status).toBe(
      401,
    );
    expect(
      (
        await user("/users/set-password", {
          body: { password: NEW_PASSWORD },
          token: await guestToken(),
        })
      ).status,
    ).toBe(403);
  });
});

describe("POST /users/change-password-admin", () => {
  it("lets an admin set a user's password by id or uuid; the user's sessions end", async () => {
    const boss = await admin();
    const a = await signUp();
    const res = await user("/users/change-password-admin", {
      token: boss.token,
      body: { userId: a.id, password: NEW_PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ uuid: a.uuid });
    expect(res.body).not.toHaveProperty("passwordHash");
    expect(await sessionStatus(a.token)).toBe(401);
    expect((await login(a.email, a.password)).status).toBe(401);
    expect((await login(a.email, NEW_PASSWORD)).status).toBe(200);
    const byUuid = await user("/users/change-password-admin", {
      token: boss.token,
      body: { userId: a.uuid, password: "third password!" },
    });
    expect(byUuid.status).toBe(201);
    expect((await login(a.email, "third password!")).status).toBe(200);
    expect(await sessionStatus(boss.token)).toBe(200);
  });

  it("tells the user by e-mail that their password was changed by an admin", async () => {
    const boss = await admin();
    const a = await signUp();
    await user("/users/change-password-admin", {
      token: boss.token,
      body: { userId: a.uuid, password: NEW_PASSWORD },
    });
    const mails = await outbox(a.email, 2);
    expect(mails.map((m) => m.subject)).toContain("Your Hangout password was changed");
    expect(mails.find((m) => m.subject.includes("password"))!.text).not.toContain(NEW_PASSWORD);
  });

  it("only a superUser resets an admin's or a superUser's password (an admin taking over another is 403)", async () => {
    const boss = await admin();
    const other = await admin();
    const top = await accountWithRoles(["user", "superUser"]);
    for (const target of [other, top]) {
      const res = await user("/users/change-password-admin", {
        token: boss.token,
        body: { userId: target.uuid, password: NEW_PASSWORD },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(MSG.onlySuperUserResetsAdmins);
      expect((await login(target.email, target.password)).status).toBe(200);
    }
    const byTop = await user("/users/change-password-admin", {
      token: top.token,
      body: { userId: other.uuid, password: NEW_PASSWORD },
    });
    expect(byTop.status).toBe(201);
    expect((await login(other.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("answers 404 for an unknown user", async () => {
    const boss = await admin();
    for (const userId of [99_999_999, "99999999", crypto.randomUUID()]) {
      const res = await user("/users/change-password-admin", {
        token: boss.token,
        body: { userId, password: NEW_PASSWORD },
      });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(MSG.profileNotFound);
    }
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const boss = await admin();
    const a = await signUp();
    const before = (await userRow(a.uuid))!;
    for (const body of [
      {},
      { userId: a.id },
      { userId: "bob", password: NEW_PASSWORD },
      { userId: -1, password: NEW_PASSWORD },
      { userId: a.id, password: "short" },
    ]) {
      const res = await user("/users/change-password-admin", { token: boss.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    expect((await userRow(a.uuid))!).toMatchObject({
      passwordHash: before.passwordHash,
      sessionVersion: before.sessionVersion,
    });
  });

  it("is for admins only: 401 without a token, 403 for a plain user or a guest", async () => {
    const a = await signUp();
    const body = { userId: a.id, password: NEW_PASSWORD };
    expect((await user("/users/change-password-admin", { body })).status).toBe(401);
    expect((await user("/users/change-password-admin", { body, token: a.token })).status).toBe(403);
    expect(
      (await user("/users/change-password-admin", { body, token: await guestToken() })).status,
    ).toBe(403);
    expect((await login(a.email, a.password)).status).toBe(200);
  });
});

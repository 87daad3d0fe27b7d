import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { userEmails } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import { CODE_TTL_MS, RESEND_GAP_MS } from "../workers/user-service/verification";
import {
  accountWithRoles,
  countRows,
  guestToken,
  latestCode,
  outbox,
  signUp,
  uniqueEmail,
  user,
} from "./helpers";

const rowOf = (email: string) =>
  db(env).select().from(userEmails).where(eq(userEmails.email, email)).all();
const rowById = (id: number) =>
  db(env).select().from(userEmails).where(eq(userEmails.id, id)).get();
/** Moves the last code of an address back in time, as if `ms` had passed. */
const ageCode = (email: string, ms: number) =>
  env.DB.prepare("update user_emails set code_sent_at = code_sent_at - ? where email = ?")
    .bind(ms, email)
    .run();
const session = async (token: string) => (await user("/auth/session", { token })).body;
/** The error message(s) of a body as a list (one problem is a string, several a list). */
const messages = (body: { message: string | string[] }) => [body.message].flat();
const wrongCode = (right: string) => String((Number(right) + 1) % 1_000_000).padStart(6, "0");

describe("GET /users/emails", () => {
  it("lists the caller's own addresses, login one marked, without secrets or deleted rows", async () => {
    const a = await signUp();
    const other = await signUp();
    const extra = uniqueEmail("work");
    const added = await user("/users/emails", {
      token: a.token,
      body: { email: extra, type: "work" },
    });
    const gone = await user("/users/emails", {
      token: a.token,
      body: { email: uniqueEmail("gone") },
    });
    await user(`/users/emails/${gone.body.id}`, { method: "DELETE", token: a.token });

    const res = await user("/users/emails", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: expect.any(Number),
        email: a.email,
        type: "personal",
        status: "PENDING_VERIFICATION",
        verifiedAt: null,
        createdAt: expect.any(String),
        isLogin: true,
      },
      {
        id: added.body.id,
        email: extra,
        type: "work",
        status: "PENDING_VERIFICATION",
        verifiedAt: null,
        createdAt: expect.any(String),
        isLogin: false,
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/codeHash|codeAttempts/);
    expect(
      (await user("/users/emails", { token: other.token })).body.map(
        (e: { email: string }) => e.email,
      ),
    ).toEqual([other.email]);
  });

  it("needs a token (401) from an account, not a guest (403)", async () => {
    expect((await user("/users/emails")).status).toBe(401);
    expect((await user("/users/emails", { token: "forged.token.here" })).status).toBe(401);
    const guest = await user("/users/emails", { token: await guestToken() });
    expect(guest.status).toBe(403);
  });
});

describe("POST /users/emails", () => {
  it("adds an address as PENDING_VERIFICATION and mails it a code", async () => {
    const a = await signUp();
    const email = uniqueEmail("extra");
    const res = await user("/users/emails", {
      token: a.token,
      body: { email: email.toUpperCase(), type: "payment" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email,
      type: "payment",
      status: "PENDING_VERIFICATION",
      verifiedAt: null,
      isLogin: false,
    });
    expect(await latestCode(email)).toMatch(/^\d{6}$/);
    const plain = await user("/users/emails", { token: a.token, body: { email: uniqueEmail() } });
    expect(plain.body.type).toBe("personal");
  });

  it("refuses an address another account logs in with, or one the caller already has", async () => {
    const a = await signUp();
    const b = await signUp();
    for (const email of [b.email, b.email.toUpperCase(), a.email]) {
      const res = await user("/users/emails", { token: a.token, body: { email } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ statusCode: 403, message: MSG.emailTaken, error: "Forbidden" });
    }
    expect(await rowOf(b.email)).toHaveLength(1);
  });

  it("adds one row when the same address is submitted twice at once", async () => {
    const a = await signUp();
    const email = uniqueEmail("double");
    const results = await Promise.all(
      [1, 2, 3].map(() => user("/users/emails", { token: a.token, body: { email } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403]);
    expect(await rowOf(email)).toHaveLength(1);
  });

  it("does not mail an inbox again when an address is deleted and re-added within the gap", async () => {
    const a = await signUp();
    const email = uniqueEmail("bomb");
    const first = await user("/users/emails", { token: a.token, body: { email } });
    await outbox(email);
    await user(`/users/emails/${first.body.id}`, { method: "DELETE", token: a.token });
    const again = await user("/users/emails", { token: a.token, body: { email } });
    expect(again.status).toBe(201);
    expect((await rowById(again.body.id))!.codeHash).toBeNull();
    // The user asks for the code once the gap has passed.
    expect(
      (await user("/users/emails/verification-email", { token: a.token, body: { email } })).body
        .message,
    ).toBe(MSG.resendRefused);
    await ageCode(email, RESEND_GAP_MS);
    expect(
      (await user("/users/emails/verification-email", { token: a.token, body: { email } })).status,
    ).toBe(201);
    expect(await outbox(email, 2)).toHaveLength(2);
  });

  it("refuses bad input with 400 and a message, and writes nothing", async () => {
    const a = await signUp();
    const before = await countRows("user_emails");
    for (const body of [
      {},
      { email: "not-an-email" },
      { email: uniqueEmail(), type: "fax" },
      { email: 42 },
      [],
    ]) {
      const res = await user("/users/emails", { token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    const typeErr = await user("/users/emails", {
      token: a.token,
      body: { email: uniqueEmail(), type: "fax" },
    });
    expect(typeErr.body.message).toBe("type must be one of personal, work, payment");
    expect(await countRows("user_emails")).toBe(before);
  });

  it("tells the login address when an address is added or removed (an intruder's change is noticed)", async () => {
    const a = await signUp();
    const extra = uniqueEmail("extra");
    const added = await user("/users/emails", { token: a.token, body: { email: extra } });
    expect(added.status).toBe(201);
    const told = await outbox(a.email, 2);
    expect(told.map((m) => m.subject)).toContain(
      "An e-mail address was added to your Hangout account",
    );
    expect(told.find((m) => m.subject.includes("added"))!.text).toContain(extra);
    await user(`/users/emails/${added.body.id}`, { method: "DELETE", token: a.token });
    const after = await outbox(a.email, 3);
    expect(after.map((m) => m.subject)).toContain(
      "An e-mail address was removed from your Hangout account",
    );
  });

  it("refuses the provider types: a client-made discord address would unlock Discord-only avatars", async () => {
    const a = await signUp();
    const before = await countRows("user_emails");
    for (const type of ["discord", "spotify"]) {
      const res = await user("/users/emails", {
        token: a.token,
        body: { email: uniqueEmail(), type },
      });
      expect(res.status, type).toBe(400);
      expect(res.body.message).toBe(
        `type ${type} comes only from linking a ${type} account; use one of personal, work, payment`,
      );
    }
    expect(await countRows("user_emails")).toBe(before);
  });

  it("needs an account token: 401 without, 403 for a guest", async () => {
    const body = { email: uniqueEmail() };
    expect((await user("/users/emails", { body })).status).toBe(401);
    expect((await user("/users/emails", { body, token: await guestToken() })).status).toBe(403);
    expect(await rowOf(body.email)).toHaveLength(0);
  });
});

describe("DELETE /users/emails/{id}", () => {
  it("marks the caller's address DELETED; it leaves the list", async () => {
    const a = await signUp();
    const added = await user("/users/emails", { token: a.token, body: { email: uniqueEmail() } });
    const res = await user(`/users/emails/${added.body.id}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: added.body.id, status: "DELETED" });
    expect((await rowById(added.body.id))!.status).toBe("DELETED");
    expect((await user("/users/emails", { token: a.token })).body).toHaveLength(1);
    const twice = await user(`/users/emails/${added.body.id}`, {
      method: "DELETE",
      token: a.token,
    });
    expect(twice.status).toBe(404);
  });

  it("answers 404 for another user's address and leaves it alone", async () => {
    const a = await signUp();
    const b = await signUp();
    const bRow = (await user("/users/emails", { token: b.token, body: { email: uniqueEmail() } }))
      .body;
    const res = await user(`/users/emails/${bRow.id}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(MSG.emailNotFound);
    expect((await rowById(bRow.id))!.status).toBe("PENDING_VERIFICATION");
  });

  it("refuses to delete the login e-mail", async () => {
    const a = await signUp();
    const [login] = (await user("/users/emails", { token: a.token })).body;
    const res = await user(`/users/emails/${login.id}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.loginEmailUndeletable);
    expect((await rowById(login.id))!.status).toBe("PENDING_VERIFICATION");
  });

  it("refuses a malformed id with 400, no token with 401, a guest with 403", async () => {
    const a = await signUp();
    const [login] = (await user("/users/emails", { token: a.token })).body;
    for (const id of ["abc", "0", "1.5", "-3"]) {
      const res = await user(`/users/emails/${id}`, { method: "DELETE", token: a.token });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0]).toMatch(/^id: /);
    }
    expect((await user(`/users/emails/${login.id}`, { method: "DELETE" })).status).toBe(401);
    expect(
      (await user(`/users/emails/${login.id}`, { method: "DELETE", token: await guestToken() }))
        .status,
    ).toBe(403);
    expect((await rowById(login.id))!.status).toBe("PENDING_VERIFICATION");
  });
});

describe.each(["/users/emails/verify", "/users/confirm-email"])("POST %s", (path) => {
  const deprecated = path === "/users/confirm-email";
  const expectDeprecation = (headers: Headers) =>
    expect(headers.get("Deprecation")).toBe(deprecated ? "true" : null);

  it("verifies the login e-mail with the code sent at sign-up", async () => {
    const a = await signUp();
    const res = await user(path, {
      token: a.token,
      body: { email: a.email, code: await latestCode(a.email) },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: a.email,
      status: "VERIFIED",
      isLogin: true,
      verifiedAt: expect.any(String),
    });
    expectDeprecation(res.headers);
    expect((await session(a.token)).user.emailVerified).toBe(true);
    // A double submit is not an error.
    expect(
      (await user(path, { token: a.token, body: { email: a.email, code: "000000" } })).status,
    ).toBe(201);
  });

  it("verifies an added address without touching the login e-mail's state", async () => {
    const a = await signUp();
    const email = uniqueEmail("second");
    await user("/users/emails", { token: a.token, body: { email } });
    const res = await user(path, {
      token: a.token,
      body: { email, code: await latestCode(email) },
    });
    expect(res.body).toMatchObject({ email, status: "VERIFIED", isLogin: false });
    expect((await session(a.token)).user.emailVerified).toBe(false);
  });

  it("refuses a wrong code (403) and an address the caller does not have (404)", async () => {
    const a = await signUp();
    const code = await latestCode(a.email);
    const wrong = await user(path, {
      token: a.token,
      body: { email: a.email, code: wrongCode(code) },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({
      statusCode: 403,
      message: MSG.verifyWrongCode,
      error: "Forbidden",
    });
    expectDeprecation(wrong.headers);
    const b = await signUp();
    const notMine = await user(path, {
      token: a.token,
      body: { email: b.email, code: await latestCode(b.email) },
    });
    expect(notMine.status).toBe(404);
    expect(notMine.body.message).toBe(MSG.emailNotFound);
    expect((await rowOf(b.email))[0].status).toBe("PENDING_VERIFICATION");
  });

  it("spends the code after five wrong guesses, even when the sixth is right (429)", async () => {
    const a = await signUp();
    const code = await latestCode(a.email);
    for (let i = 0; i < 5; i++)
      expect(
        (await user(path, { token: a.token, body: { email: a.email, code: wrongCode(code) } }))
          .status,
      ).toBe(403);
    // The day's guesses for this address are spent: even the right code waits.
    const right = await user(path, { token: a.token, body: { email: a.email, code } });
    expect(right.status).toBe(429);
    expect(right.body.message).toMatch(/^Too many wrong verification codes for this address/);
    expect(Number(right.headers.get("Retry-After"))).toBeGreaterThan(3600);
    expect((await session(a.token)).user.emailVerified).toBe(false);
  });

  it("refuses an expired code", async () => {
    const a = await signUp();
    const code = await latestCode(a.email);
    await ageCode(a.email, CODE_TTL_MS + 1000);
    expect((await user(path, { token: a.token, body: { email: a.email, code } })).status).toBe(403);
  });

  it("refuses bad input with 400 and does not spend an attempt", async () => {
    const a = await signUp();
    for (const body of [
      {},
      { email: a.email },
      { email: a.email, code: "12ab56" },
      { email: a.email, code: 123456 },
      { email: "x", code: "123456" },
    ]) {
      const res = await user(path, { token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    expect((await rowOf(a.email))[0]).toMatchObject({
      codeAttempts: 0,
      status: "PENDING_VERIFICATION",
    });
  });

  it("needs an account token: 401 without, 403 for a guest", async () => {
    const a = await signUp();
    const body = { email: a.email, code: await latestCode(a.email) };
    const none = await user(path, { body });
    expect(none.status).toBe(401);
    expectDeprecation(none.headers);
    expect((await user(path, { body, token: await guestToken() })).status).toBe(403);
    expect((await rowOf(a.email))[0].status).toBe("PENDING_VERIFICATION");
  });
});

describe("POST /users/emails/verification-email", () => {
  it("refuses a resend within 60 s, then sends a new code that replaces the old one", async () => {
    const a = await signUp();
    const oldCode = await latestCode(a.email);
    const early = await user("/users/emails/verification-email", {
      token: a.token,
      body: { email: a.email },
    });
    expect(early.status).toBe(403);
    expect(early.body.message).toBe(MSG.resendRefused);

    await ageCode(a.email, RESEND_GAP_MS);
    const res = await user("/users/emails/verification-email", {
      token: a.token,
      body: { email: a.email },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: a.email, status: "PENDING_VERIFICATION" });
    const newCode = await latestCode(a.email, 2);
    if (newCode !== oldCode)
      expect(
        (
          await user("/users/emails/verify", {
            token: a.token,
            body: { email: a.email, code: oldCode },
          })
        ).status,
      ).toBe(403);
    expect(
      (
        await user("/users/emails/verify", {
          token: a.token,
          body: { email: a.email, code: newCode },
        })
      ).status,
    ).toBe(201);
  });

  it("lets only one of two racing resends send a mail", async () => {
    const a = await signUp();
    await outbox(a.email);
    await ageCode(a.email, RESEND_GAP_MS);
    const results = await Promise.all(
      [1, 2].map(() =>
        user("/users/emails/verification-email", { token: a.token, body: { email: a.email } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
  });

  it("refuses a verified address (403) and one the caller does not have (404)", async () => {
    const a = await signUp();
    await user("/users/emails/verify", {
      token: a.token,
      body: { email: a.email, code: await latestCode(a.email) },
    });
    await ageCode(a.email, RESEND_GAP_MS);
    const verified = await user("/users/emails/verification-email", {
      token: a.token,
      body: { email: a.email },
    });
    expect(verified.status).toBe(403);
    expect(verified.body.message).toBe(MSG.resendRefused);
    const unknown = await user("/users/emails/verification-email", {
      token: a.token,
      body: { email: uniqueEmail("nobody") },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      statusCode: 404,
      message: MSG.emailNotFound,
      error: "Not Found",
    });
  });

  it("refuses bad input with 400 and sends nothing", async () => {
    const a = await signUp();
    await ageCode(a.email, RESEND_GAP_MS);
    const [before] = await rowOf(a.email);
    for (const body of [{}, { email: "nope" }, { email: ["a@b.co"] }]) {
      const res = await user("/users/emails/verification-email", { token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    expect((await rowOf(a.email))[0].codeSentAt).toBe(before.codeSentAt);
  });

  it("needs an account token (401 without, 403 for a guest); an admin cannot resend for someone else", async () => {
    const a = await signUp();
    await ageCode(a.email, RESEND_GAP_MS);
    const body = { email: a.email };
    expect((await user("/users/emails/verification-email", { body })).status).toBe(401);
    expect(
      (await user("/users/emails/verification-email", { body, token: await guestToken() })).status,
    ).toBe(403);
    const [row] = await rowOf(a.email);
    expect(Date.now() - row.codeSentAt!).toBeGreaterThanOrEqual(RESEND_GAP_MS);
    // An admin is still only the owner of their own addresses.
    const boss = await accountWithRoles(["user", "admin"]);
    expect(
      (await user("/users/emails/verification-email", { body, token: boss.token })).status,
    ).toBe(404);
  });
});

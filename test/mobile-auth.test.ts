import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { phoneCodes, userPhones, users } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import { admin, call, callWith, countRows, signUp, uniqueIp, user } from "./helpers";
import { consume, stubFetch } from "./notify-helpers";
import { codeFor, mobileNumber, sendCode, textedCode, textsTo, verifyCode } from "./phone-helpers";

const codeRow = (phone: string) =>
  db(env).select().from(phoneCodes).where(eq(phoneCodes.phone, phone)).get();
const phonesOf = (userId: number) =>
  db(env).select().from(userPhones).where(eq(userPhones.userId, userId)).all();

describe("mobile sign-in", () => {
  it("texts a code that makes an account once, then signs that account in", async () => {
    const phone = mobileNumber();
    const sent = await sendCode(phone.replace("+34", "0034 ").replace(/(\d{3})(\d{3})$/, "$1 $2"));
    expect(sent).toMatchObject({
      status: 200,
      body: { message: MSG.codeSent, phoneNumber: phone },
    });
    const [text] = await textsTo(phone);
    expect(text.text).toMatch(/Your Hangout code is \d{6}\./);
    // The WebOTP line, so the phone offers to fill the code in on our site only.
    expect(text.text).toMatch(/\n@hangout\.test #\d{6}$/);
    // Only the code's hash is kept.
    const code = await textedCode(phone);
    expect(JSON.stringify(await codeRow(phone))).not.toContain(code);

    const made = await verifyCode(phone, code, { nickname: "Night Owl" });
    expect(made).toMatchObject({
      status: 201,
      body: { isNewUser: true, user: { nickname: "Night Owl" } },
    });
    const session = await user("/auth/session", { token: made.body.token });
    expect(session.body).toMatchObject({ isLoggedIn: true, user: { uuid: made.body.user.uuid } });

    // The code worked once.
    expect(await verifyCode(phone, code)).toMatchObject({
      status: 401,
      body: { message: MSG.phoneCodeWrong },
    });
    // A new code signs the same account in.
    const again = await verifyCode(phone, await codeFor(phone, 2));
    expect(again).toMatchObject({ status: 200, body: { isNewUser: false } });
    expect(again.body.user.uuid).toBe(made.body.user.uuid);
  });

  it("never names a new account after its number", async () => {
    const phone = mobileNumber();
    const made = await verifyCode(phone, await codeFor(phone));
    expect(made.status).toBe(201);
    expect(made.body.user.nickname).not.toContain(phone.slice(-4));
  });

  it("signs in once when ten verifies race with the right code: one account, one number", async () => {
    const phone = mobileNumber();
    const code = await codeFor(phone);
    const before = await countRows("users");
    const results = await Promise.all(Array.from({ length: 10 }, () => verifyCode(phone, code)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
    expect(await countRows("users")).toBe(before + 1);
    const rows = await db(env).select().from(userPhones).where(eq(userPhones.phone, phone)).all();
    expect(rows).toHaveLength(1);
  });

  it("kills a code after five wrong guesses, and refuses an expired one", async () => {
    const phone = mobileNumber();
    const code = await codeFor(phone);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++)
      expect((await verifyCode(phone, wrong)).body.message).toBe(MSG.phoneCodeWrong);
    expect(await codeRow(phone)).toBeUndefined();
    expect((await verifyCode(phone, code)).status).toBe(401);

    const later = mobileNumber();
    const fresh = await codeFor(later);
    await db(env)
      .update(phoneCodes)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(phoneCodes.phone, later))
      .run();
    expect((await verifyCode(later, fresh)).status).toBe(401);
  });

  it("limits wrong codes per number across resends (429), and a right code clears them", async () => {
    const phone = mobileNumber();
    let code = "";
    for (let round = 0; round < 2; round++) {
      code = await codeFor(phone, round + 1);
      const wrong = code === "000000" ? "111111" : "000000";
      for (let i = 0; i < 5; i++) await verifyCode(phone, wrong);
    }
    code = await codeFor(phone, 3);
    const refused = await verifyCode(phone, code);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(
      /^Too many wrong codes for this number\. Please try again in \d+ (minutes|hours)\.$/,
    );
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    // The refused guess did not spend the code.
    expect(await codeRow(phone)).toBeDefined();
  });

  it("refuses VoIP, landlines, national and made-up numbers with the spec's message, texting nothing", async () => {
    const texts = await countRows("dev_outbox");
    for (const phone of [
      "+445612345678",
      "+34912345678",
      "612345678",
      "+3461234",
      "+99912345678",
    ]) {
      const res = await sendCode(phone);
      expect(res).toMatchObject({ status: 400, body: { message: MSG.phoneInvalid } });
    }
    expect(MSG.phoneInvalid).toBe(
      "Phone number is invalid. Only real, non-VoIP mobile numbers are allowed.",
    );
    expect(await codeRow("+445612345678")).toBeUndefined();
    expect(await countRows("dev_outbox")).toBe(texts);
  });

  it("answers 400 to bad bodies and writes nothing", async () => {
    const codes = await countRows("phone_codes");
    for (const body of [
      {},
      { phone: 34612345678 },
      { phone: "+34612345678", channel: "fax" },
      { phone: "+34612345678", extra: 1 },
      { phone: `+34${"6".repeat(60)}` },
    ]) {
      const res = await user("/mobile-auth/send-code", { body, ip: uniqueIp() });
      expect(res.status).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
    for (const body of [
      { phone: "+34612345678" },
      { phone: "+34612345678", code: "12ab56" },
      { phone: "+34612345678", code: "1".repeat(20) },
    ]) {
      expect((await user("/mobile-auth/verify-code", { body })).status).toBe(400);
    }
    expect(await countRows("phone_codes")).toBe(codes);
  });

  it("sends by WhatsApp when asked", async () => {
    const phone = mobileNumber();
    expect((await sendCode(phone, { channel: "whatsapp" })).body.channel).toBe("whatsapp");
    const code = await textedCode(phone, 1, "whatsapp");
    expect((await verifyCode(phone, code)).status).toBe(201);
  });

  it("answers 503 naming the channel when it has no provider in production, and makes no code", async () => {
    const phone = mobileNumber();
    const res = await callWith(
      { ENVIRONMENT: "production" },
      "user-service",
      "/mobile-auth/send-code",
      {
        body: { phone, channel: "whatsapp" },
      },
    );
    expect(res).toMatchObject({ status: 503, body: { message: MSG.textChannelOff("whatsapp") } });
    expect(res.body.message).toContain("WhatsApp");
    expect(await codeRow(phone)).toBeUndefined();
  });
});

describe("the text adapter", () => {
  afterEach(() => vi.restoreAllMocks());

  it("posts each text to the configured provider once, keyed by its id, and retries a failure", async () => {
    const seen = stubFetch(
      (c) =>
        new Response(null, { status: c.headers.get("Idempotency-Key") === "t-fail" ? 502 : 202 }),
    );
    const over = { SMS_API_URL: "https://sms.example/send", SMS_API_KEY: "sk" };
    const to = mobileNumber();
    const ok = await consume(
      [{ channel: "sms", id: "t-ok", to, text: "Your code is 123456" }],
      over,
    );
    expect(ok.acked).toEqual(ok.ids);
    expect(seen[0].url).toBe("https://sms.example/send");
    expect(seen[0].headers.get("Authorization")).toBe("Bearer sk");
    expect(JSON.parse(new TextDecoder().decode(seen[0].body))).toEqual({
      channel: "sms",
      to,
      text: "Your code is 123456",
    });
    const failed = await consume([{ channel: "sms", id: "t-fail", to, text: "x" }], over);
    expect(failed.retried).toEqual(failed.ids);
    // Nothing reached the dev outbox while a provider was set.
    expect(await textsTo(to, 0)).toEqual([]);
  });
});

describe("send-code limits", () => {
  it("stops the sixth code to one number within the hour, from any network", async () => {
    const phone = mobileNumber();
    for (let i = 0; i < 5; i++) expect((await sendCode(phone)).status).toBe(200);
    const res = await sendCode(phone);
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(
      /^Too many codes were sent to this number\. Please try again in/,
    );
    expect(await textsTo(phone, 5)).toHaveLength(5);
  });

  it("stops the eleventh code asked for from one network", async () => {
    const ip = uniqueIp();
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await sendCode(mobileNumber(), { ip }));
    expect(results.slice(0, 10).every((r) => r.status === 200)).toBe(true);
    expect(results[10].status).toBe(429);
    expect(results[10].body.message).toMatch(/from your network/);
  });

  it("stops a pumping burst into one number range from many networks (toll fraud)", async () => {
    const range = () => `+34699${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
    const results = await Promise.all(Array.from({ length: 34 }, () => sendCode(range())));
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(4);
    expect(refused[0].body.message).toMatch(/numbers like this one/);
    // Another range is untouched.
    expect((await sendCode(mobileNumber())).status).toBe(200);
  });
});

describe("numbers and accounts", () => {
  it("links a number to the signed-in account; another account cannot take it (409)", async () => {
    const a = await signUp();
    const phone = mobileNumber();
    const linked = await verifyCode(phone, await codeFor(phone), { token: a.token });
    expect(linked).toMatchObject({
      status: 200,
      body: { phoneNumber: phone, user: { uuid: a.uuid } },
    });
    expect((await phonesOf(a.id)).map((p) => p.phone)).toEqual([phone]);

    const b = await signUp();
    const taken = await verifyCode(phone, await codeFor(phone, 2), { token: b.token });
    expect(taken).toMatchObject({ status: 409, body: { message: MSG.phoneTaken } });
    expect(await phonesOf(b.id)).toEqual([]);

    // Signed out, the number signs in its account: the e-mail account, no new one.
    const signedIn = await verifyCode(phone, await codeFor(phone, 3));
    expect(signedIn).toMatchObject({
      status: 200,
      body: { isNewUser: false, user: { uuid: a.uuid } },
    });

    // A second number replaces the first: an account has one.
    const next = mobileNumber();
    await verifyCode(next, await codeFor(next), { token: a.token });
    expect((await phonesOf(a.id)).map((p) => p.phone)).toEqual([next]);
  });

  it("refuses a deactivated account's number (403) and a banned one's with the ban", async () => {
    const phone = mobileNumber();
    const made = await verifyCode(phone, await codeFor(phone));
    await db(env)
      .update(users)
      .set({ deactivated: true })
      .where(eq(users.uuid, made.body.user.uuid))
      .run();
    expect(await verifyCode(phone, await codeFor(phone, 2))).toMatchObject({
      status: 403,
      body: { message: MSG.accountDeactivated },
    });

    const other = mobileNumber();
    const banned = await verifyCode(other, await codeFor(other));
    const boss = await admin();
    expect(
      (
        await user("/users/ban", {
          token: boss.token,
          body: { userUuid: banned.body.user.uuid, reason: "spam" },
        })
      ).status,
    ).toBe(201);
    const refused = await verifyCode(other, await codeFor(other, 2));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/banned/i);
  });

  it("matches a verified number in a friend's contact book, however it was written", async () => {
    const phone = mobileNumber();
    const owner = await verifyCode(phone, await codeFor(phone));
    const friend = await signUp();
    const spaced = `${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6, 9)} ${phone.slice(9)}`;
    const post = await callSocial("/user-book-contact", friend.token, {
      contacts: [{ phone: spaced }],
    });
    expect(post.status).toBe(201);
    const match = await callSocial("/user-book-contact/matching-contacts", friend.token);
    expect(match.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([owner.body.user.uuid]);
  });
});

const callSocial = (path: string, token: string, body?: unknown) =>
  call("social-service", path, { token, body });

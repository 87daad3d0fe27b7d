import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { phoneCodes, phoneValidations } from "../workers/db/schema";
import { RULES } from "../workers/lib/abuse-limits";
import { MSG } from "../workers/user-service/messages";
import { purgePhoneData, VALIDATION_RETENTION_MS } from "../workers/user-service/phone-validation";
import { stubFetch } from "./notify-helpers";
import { admin, callWith, countRows, signUp, uniqueIp, user } from "./helpers";
import { codeFor, mobileNumber, sendCode, textsTo, verifyCode } from "./phone-helpers";

const validate = (phone: string, token?: string) =>
  user(`/phone-validation/validate/${encodeURIComponent(phone)}`, { token, ip: uniqueIp() });

afterEach(() => vi.restoreAllMocks());

describe("GET /phone-validation/validate/{phone}", () => {
  it("tells a real mobile from VoIP, landlines and what is not a number", async () => {
    expect((await validate("+34 612 34 56 78")).body).toEqual({
      result: "VALID",
      valid: true,
      phoneNumber: "+34612345678",
      country: "ES",
      lineType: "MOBILE",
      message: null,
    });
    const voip = await validate("+445612345678");
    expect(voip.body).toMatchObject({
      result: "VOIP",
      valid: false,
      lineType: "VOIP",
      message: MSG.phoneInvalid,
    });
    for (const n of ["+34912345678", "+448001234567", "612345678", "hello", "+3461"]) {
      const res = await validate(n);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        result: "INVALID",
        valid: false,
        message: MSG.phoneInvalid,
      });
    }
    // "00" reads as "+"; a raw "+" in the path is the plus too.
    expect((await validate("0034612345678")).body.result).toBe("VALID");
    expect(
      (await user("/phone-validation/validate/+34612345678", { ip: uniqueIp() })).body.result,
    ).toBe("VALID");
  });

  it("is 400 for an over-long input and keeps nothing", async () => {
    const before = await countRows("phone_validations");
    const res = await validate(`+34${"6".repeat(60)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/at most 40/);
    expect(await countRows("phone_validations")).toBe(before);
  });

  it("asks the carrier lookup when one is configured: VoIP it sees, VALIDATION_ERROR when it fails", async () => {
    const seen = stubFetch((c) =>
      c.url.includes("%2B34611111111")
        ? Response.json({ line_type_intelligence: { type: "nonFixedVoip" } })
        : c.url.includes("%2B34622222222")
          ? new Response("down", { status: 503 })
          : Response.json({ line_type_intelligence: { type: "mobile" } }),
    );
    const over = {
      PHONE_LOOKUP_URL: "https://lookups.example/v2/PhoneNumbers",
      PHONE_LOOKUP_KEY: "k",
    };
    const ask = (n: string) =>
      callWith(over, "user-service", `/phone-validation/validate/${encodeURIComponent(n)}`);
    expect((await ask("+34611111111")).body).toMatchObject({
      result: "VOIP",
      lineType: "nonFixedVoip",
    });
    expect((await ask("+34622222222")).body).toMatchObject({
      result: "VALIDATION_ERROR",
      message: MSG.phoneCheckFailed,
    });
    expect((await ask("+34633333333")).body).toMatchObject({ result: "VALID", lineType: "mobile" });
    expect(seen[0].url).toBe(
      "https://lookups.example/v2/PhoneNumbers/%2B34611111111?Fields=line_type_intelligence",
    );
    expect(seen[0].headers.get("Authorization")).toBe("Bearer k");
    // A number that is not one is never sent to the (paid) lookup.
    await ask("+3461");
    expect(seen).toHaveLength(3);
  });

  it("limits checks per network (429)", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < RULES.phoneValidatePerIp.limit; i++)
      await user("/phone-validation/validate/%2B34612345678", { ip });
    const res = await user("/phone-validation/validate/%2B34612345678", { ip });
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(/Too many phone numbers checked from your network/);
  });
});

describe("recent validations", () => {
  it("shows a user their own checks, newest first, forgets them on DELETE; admins may see all", async () => {
    const a = await signUp();
    const b = await signUp();
    await validate("+34612345678", a.token);
    await validate("+445612345678", a.token);
    await validate("+34698765432", b.token);
    const mine = await user("/phone-validation/recents", { token: a.token });
    expect(
      mine.body.data.map((r: { phoneNumber: string; result: string }) => [r.phoneNumber, r.result]),
    ).toEqual([
      ["+445612345678", "VOIP"],
      ["+34612345678", "VALID"],
    ]);
    // Not an admin: all=true still answers only their own.
    const notAll = await user("/phone-validation/recents?all=true", { token: b.token });
    expect(notAll.body.data.map((r: { phoneNumber: string }) => r.phoneNumber)).toEqual([
      "+34698765432",
    ]);
    const boss = await admin();
    const all = await user("/phone-validation/recents?all=true&take=100", { token: boss.token });
    expect(all.body.data.length).toBeGreaterThanOrEqual(3);

    expect(
      await user("/phone-validation/recents", { method: "DELETE", token: a.token }),
    ).toMatchObject({
      status: 200,
      body: { deleted: 2 },
    });
    expect((await user("/phone-validation/recents", { token: a.token })).body.data).toEqual([]);
    expect((await user("/phone-validation/recents", { token: b.token })).body.data).toHaveLength(1);
  });

  it("needs a token (401) and bounds paging (400)", async () => {
    expect((await user("/phone-validation/recents")).status).toBe(401);
    expect((await user("/phone-validation/recents", { method: "DELETE" })).status).toBe(401);
    const a = await signUp();
    expect((await user("/phone-validation/recents?take=1000", { token: a.token })).status).toBe(
      400,
    );
    expect((await user("/phone-validation/recents?all=yes", { token: a.token })).status).toBe(400);
  });

  it("are purged after 30 days with dead codes, by the cron's sweep", async () => {
    const now = Date.now();
    await db(env)
      .insert(phoneValidations)
      .values([
        { phone: "+34600000001", result: "VALID", createdAt: now - VALIDATION_RETENTION_MS - 1 },
        { phone: "+34600000002", result: "VALID", createdAt: now - 1000 },
      ])
      .run();
    await db(env)
      .insert(phoneCodes)
      .values([
        { phone: "+34600000003", codeHash: "x", channel: "sms", expiresAt: now - 1 },
        { phone: "+34600000004", codeHash: "y", channel: "sms", expiresAt: now + 60_000 },
      ])
      .run();
    await purgePhoneData(env, now);
    const phones = (await db(env).select().from(phoneValidations).all()).map((r) => r.phone);
    expect(phones).toContain("+34600000002");
    expect(phones).not.toContain("+34600000001");
    expect((await db(env).select().from(phoneCodes).all()).map((r) => r.phone)).toContain(
      "+34600000004",
    );
    expect((await db(env).select().from(phoneCodes).all()).map((r) => r.phone)).not.toContain(
      "+34600000003",
    );
  });
});

describe("GET /phone-validation/fraudConstants", () => {
  it("answers the limits in force and the channels that work", async () => {
    const res = await user("/phone-validation/fraudConstants");
    expect(res.body).toMatchObject({
      codeLength: 6,
      codeTtlSeconds: 600,
      maxAttemptsPerCode: 5,
      voipAllowed: false,
      lineTypeSource: "number-ranges",
      channels: { sms: true, whatsapp: true },
      limits: {
        codesPerPhone: { limit: RULES.textCodePerPhone.limit, periodSeconds: 3600 },
        codesPerPrefix: { limit: RULES.textCodePerPrefix.limit, periodSeconds: 3600 },
      },
    });
  });
});

describe("the phone whitelist", () => {
  const adminCalls = (phone: string, id: number) =>
    [
      ["POST", "/mobile-auth/whitelist", { phone, code: "1234" }],
      ["DELETE", `/mobile-auth/whitelist/${encodeURIComponent(phone)}`, undefined],
      ["GET", "/admin/phoneNumbers", undefined],
      ["POST", "/admin/phoneNumbers", { phone, code: "1234" }],
      ["GET", `/admin/phoneNumbers/${id}`, undefined],
      ["DELETE", `/admin/phoneNumbers/${id}`, undefined],
    ] as const;

  it("signs a whitelisted number in with its fixed code and texts it nothing", async () => {
    const boss = await admin();
    const phone = mobileNumber();
    const added = await user("/mobile-auth/whitelist", {
      token: boss.token,
      body: { phone, code: "424242", note: "App Store review" },
    });
    expect(added).toMatchObject({
      status: 201,
      body: { phoneNumber: phone, code: "424242", note: "App Store review" },
    });
    expect((await sendCode(phone)).body).toMatchObject({
      message: MSG.codeSent,
      phoneNumber: phone,
    });
    expect(await verifyCode(phone, "000000")).toMatchObject({ status: 401 });
    const made = await verifyCode(phone, "424242");
    expect(made).toMatchObject({ status: 201, body: { isNewUser: true } });
    // Only the whitelist's code: nothing was texted to the number.
    await new Promise((r) => setTimeout(r, 300));
    expect(await textsTo(phone, 0)).toEqual([]);

    // Off the whitelist, the number gets real codes again and the fixed one stops working.
    const removed = await user(`/mobile-auth/whitelist/${encodeURIComponent(phone)}`, {
      method: "DELETE",
      token: boss.token,
    });
    expect(removed.status).toBe(200);
    expect((await verifyCode(phone, "424242")).status).toBe(401);
    const again = await verifyCode(phone, await codeFor(phone));
    expect(again).toMatchObject({ status: 200, body: { user: { uuid: made.body.user.uuid } } });
    expect(await textsTo(phone)).toHaveLength(1);
  });

  it("limits guesses at a whitelisted number's fixed code like any code (429 after 10 wrong)", async () => {
    const boss = await admin();
    const phone = mobileNumber();
    await user("/mobile-auth/whitelist", { token: boss.token, body: { phone, code: "8080" } });
    for (let i = 0; i < 10; i++) expect((await verifyCode(phone, `${1000 + i}`)).status).toBe(401);
    expect((await verifyCode(phone, "8080")).status).toBe(429);
  });

  it("lists, reads and removes entries in the admin panel; duplicates 409, bad input 400, unknown 404", async () => {
    const boss = await admin();
    const phone = mobileNumber();
    const made = await user("/admin/phoneNumbers", {
      token: boss.token,
      body: { phone, code: "7777" },
    });
    expect(made.status).toBe(201);
    const id = made.body.id as number;
    expect(
      (
        await user("/mobile-auth/whitelist", {
          token: boss.token,
          body: { phone: phone.replace("+", "00"), code: "1111" },
        })
      ).body.message,
    ).toBe(MSG.whitelistTaken);
    const list = await user(
      `/admin/phoneNumbers?filter=phoneNumber||$eq||${encodeURIComponent(phone)}`,
      {
        token: boss.token,
      },
    );
    expect(list.body).toMatchObject({ total: 1, data: [{ id, phoneNumber: phone, code: "7777" }] });
    expect((await user(`/admin/phoneNumbers/${id}`, { token: boss.token })).body.phoneNumber).toBe(
      phone,
    );
    for (const body of [
      { phone, code: "12" },
      { phone: "+34912345678x", code: "1234" },
      { phone: "nope", code: "1234" },
      { code: "1234" },
    ])
      expect((await user("/admin/phoneNumbers", { token: boss.token, body })).status).toBe(400);
    expect(
      (await user(`/admin/phoneNumbers/${id}`, { method: "DELETE", token: boss.token })).status,
    ).toBe(200);
    expect((await user(`/admin/phoneNumbers/${id}`, { token: boss.token })).status).toBe(404);
    expect(
      (await user(`/admin/phoneNumbers/${id}`, { method: "DELETE", token: boss.token })).status,
    ).toBe(404);
    expect((await user("/admin/phoneNumbers/abc", { token: boss.token })).status).toBe(400);
    expect(
      (
        await user(`/mobile-auth/whitelist/${encodeURIComponent(mobileNumber())}`, {
          method: "DELETE",
          token: boss.token,
        })
      ).status,
    ).toBe(404);
  });

  it("refuses every whitelist call without a token (401) and from a plain user (403), changing nothing", async () => {
    const boss = await admin();
    const phone = mobileNumber();
    const made = await user("/admin/phoneNumbers", {
      token: boss.token,
      body: { phone, code: "5555" },
    });
    const plain = await signUp();
    const before = await countRows("phone_whitelist");
    for (const [method, path, body] of adminCalls(phone, made.body.id)) {
      expect((await user(path, { method, body })).status, `${method} ${path}`).toBe(401);
      expect(
        (await user(path, { method, body, token: plain.token })).status,
        `${method} ${path}`,
      ).toBe(403);
    }
    expect(await countRows("phone_whitelist")).toBe(before);
  });
});

import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { users, vouchers } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import {
  admin,
  countRows,
  guestToken,
  latestCode,
  signUp,
  uniqueEmail,
  uniqueIp,
  user,
  type TestAccount,
} from "./helpers";

const messages = (body: { message: string | string[] }) => [body.message].flat();
const voucherRow = (code: string) =>
  db(env).select().from(vouchers).where(eq(vouchers.code, code)).get();
const capabilitiesOf = async (token: string) =>
  (await user("/auth/session", { token })).body.user.capabilities;

let boss: TestAccount | undefined;
const adminToken = async () => (boss ??= await admin()).token;

/** Mints vouchers as an admin and returns them. */
async function mint(body: Record<string, unknown> = {}) {
  const res = await user("/vouchers", { token: await adminToken(), body });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; code: string; status: string; capability: string | null }[];
}

describe("POST /vouchers", () => {
  it("mints readable, unique PENDING codes", async () => {
    const data = await mint({ count: 5, capability: "uploadMusic", note: "for the launch party" });
    expect(data).toHaveLength(5);
    for (const v of data) {
      expect(v).toMatchObject({
        status: "PENDING",
        capability: "uploadMusic",
        note: "for the launch party",
        redeemedBy: null,
        createdBy: boss!.uuid,
      });
      expect(v.code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    }
    expect(new Set(data.map((v) => v.code)).size).toBe(5);
    const [one] = await mint();
    expect(one).toMatchObject({ status: "PENDING", capability: null });
    expect(await mint({ count: 100 })).toHaveLength(100);
  });

  it("refuses bad input with 400 and a message, and mints nothing", async () => {
    const token = await adminToken();
    const before = await countRows("vouchers");
    for (const body of [
      { count: 0 },
      { count: 101 },
      { count: "3" },
      { count: 1.5 },
      { capability: "fly" },
      { note: "x".repeat(501) },
      [],
    ]) {
      const res = await user("/vouchers", { token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
    expect((await user("/vouchers", { token, body: { count: 101 } })).body.message).toBe(
      "count must be at most 100",
    );
    expect(await countRows("vouchers")).toBe(before);
  });

  it("is for admins only: 401 without a token, 403 for a plain user or a guest", async () => {
    const before = await countRows("vouchers");
    expect((await user("/vouchers", { body: {} })).status).toBe(401);
    expect((await user("/vouchers", { body: {}, token: (await signUp()).token })).status).toBe(403);
    expect((await user("/vouchers", { body: {}, token: await guestToken() })).status).toBe(403);
    expect(await countRows("vouchers")).toBe(before);
  });
});

describe("GET /vouchers", () => {
  it("lists with the crud query language: filter, sort, fields, paging", async () => {
    const token = await adminToken();
    const codes = (await mint({ count: 3, capability: "promoteRoom" })).map((v) => v.code).sort();
    const q = `filter=code||$in||${codes.join(",")}&sort=code,ASC`;
    const res = await user(`/vouchers?${q}&limit=2`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 2, total: 3, page: 1, pageCount: 2 });
    expect(res.body.data.map((v: { code: string }) => v.code)).toEqual(codes.slice(0, 2));
    const page2 = await user(`/vouchers?${q}&limit=2&page=2`, { token });
    expect(page2.body.data.map((v: { code: string }) => v.code)).toEqual(codes.slice(2));
    const slim = await user(`/vouchers?${q}&fields=code`, { token });
    expect(Object.keys(slim.body.data[0]).sort()).toEqual(["code", "id"]);

    const redeemer = await signUp();
    await user("/vouchers/redeem", {
      method: "PATCH",
      token: redeemer.token,
      body: { code: codes[1] },
    });
    const redeemed = await user(
      `/vouchers?filter=redeemedBy||$eq||${redeemer.uuid}&filter=status||$eq||REDEEMED`,
      { token },
    );
    expect(redeemed.body.data.map((v: { code: string }) => v.code)).toEqual([codes[1]]);
  });

  it("refuses bad queries with 400", async () => {
    const token = await adminToken();
    for (const q of [
      "filter=note||$eq||x",
      "filter=status",
      "sort=code,SIDEWAYS",
      "limit=0",
      "limit=1000",
      "s={oops",
      "fields=createdBy",
    ]) {
      const res = await user(`/vouchers?${q}`, { token });
      expect(res.status, q).toBe(400);
      expect(messages(res.body)[0].length).toBeGreaterThan(0);
    }
  });

  it("is for admins only: 401 without a token, 403 for a plain user or a guest", async () => {
    expect((await user("/vouchers")).status).toBe(401);
    expect((await user("/vouchers", { token: (await signUp()).token })).status).toBe(403);
    expect((await user("/vouchers", { token: await guestToken() })).status).toBe(403);
  });
});

describe("DELETE /vouchers/{id}", () => {
  it("revokes a pending voucher; it can no longer be redeemed; revoking again changes nothing", async () => {
    const token = await adminToken();
    const [v] = await mint();
    const res = await user(`/vouchers/${v.id}`, { method: "DELETE", token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: v.id, status: "REVOKED" });
    const redeem = await user("/vouchers/redeem", {
      method: "PATCH",
      token: (await signUp()).token,
      body: { code: v.code },
    });
    expect(redeem.status).toBe(403);
    expect((await user(`/vouchers/${v.id}`, { method: "DELETE", token })).body.status).toBe(
      "REVOKED",
    );
  });

  it("refuses a redeemed voucher (409) and an unknown one (404)", async () => {
    const token = await adminToken();
    const [v] = await mint();
    const a = await signUp();
    await user("/vouchers/redeem", { method: "PATCH", token: a.token, body: { code: v.code } });
    const res = await user(`/vouchers/${v.id}`, { method: "DELETE", token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: MSG.voucherAlreadyRedeemed,
      error: "Conflict",
    });
    expect((await voucherRow(v.code))!).toMatchObject({ status: "REDEEMED", redeemedBy: a.uuid });
    const unknown = await user("/vouchers/99999999", { method: "DELETE", token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(MSG.voucherNotFound);
  });

  it("refuses a malformed id with 400; admins only (401, 403)", async () => {
    const [v] = await mint();
    for (const id of ["abc", "0", "-1", "2.5"])
      expect(
        (await user(`/vouchers/${id}`, { method: "DELETE", token: await adminToken() })).status,
      ).toBe(400);
    expect((await user(`/vouchers/${v.id}`, { method: "DELETE" })).status).toBe(401);
    expect(
      (await user(`/vouchers/${v.id}`, { method: "DELETE", token: (await signUp()).token })).status,
    ).toBe(403);
    expect(
      (await user(`/vouchers/${v.id}`, { method: "DELETE", token: await guestToken() })).status,
    ).toBe(403);
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });
});

describe("PATCH /vouchers/redeem", () => {
  it("redeems once and grants the capability, without duplicates", async () => {
    const a = await signUp();
    const [v, w] = await mint({ count: 2, capability: "uploadMusic" });
    const res = await user("/vouchers/redeem", {
      method: "PATCH",
      token: a.token,
      body: { code: v.code },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      voucher: { id: v.id, status: "REDEEMED", redeemedBy: a.uuid },
      capabilities: ["uploadMusic"],
    });
    expect(await capabilitiesOf(a.token)).toEqual(["uploadMusic"]);
    const again = await user("/vouchers/redeem", {
      method: "PATCH",
      token: a.token,
      body: { code: v.code },
    });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(MSG.voucherInvalid);
    // Typed loosely: lower case, spaces instead of dashes.
    const loose = w.code.toLowerCase().replace(/-/g, " ");
    expect(
      (await user("/vouchers/redeem", { method: "PATCH", token: a.token, body: { code: loose } }))
        .status,
    ).toBe(200);
    expect(await capabilitiesOf(a.token)).toEqual(["uploadMusic"]);
  });

  it("lets exactly one of many racing users redeem a code", async () => {
    const [v] = await mint({ capability: "promoteRoom" });
    const racers = await Promise.all([1, 2, 3, 4, 5].map(() => signUp()));
    const results = await Promise.all(
      racers.map((r) =>
        user("/vouchers/redeem", { method: "PATCH", token: r.token, body: { code: v.code } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403]);
    const winner = racers[results.findIndex((r) => r.status === 200)];
    expect((await voucherRow(v.code))!.redeemedBy).toBe(winner.uuid);
    const caps = await Promise.all(racers.map((r) => capabilitiesOf(r.token)));
    expect(caps.filter((c) => c.length > 0)).toEqual([["promoteRoom"]]);
  });

  it("refuses an unknown code with 403 and bad input with 400", async () => {
    const a = await signUp();
    expect(
      (
        await user("/vouchers/redeem", {
          method: "PATCH",
          token: a.token,
          body: { code: "AAAA-BBBB-CCCC" },
        })
      ).body.message,
    ).toBe(MSG.voucherInvalid);
    const [v] = await mint();
    for (const body of [{}, { code: "" }, { code: 12 }, { code: "x".repeat(65) }]) {
      const res = await user("/vouchers/redeem", { method: "PATCH", token: a.token, body });
      expect(res.status).toBe(400);
      expect(messages(res.body)[0]).toMatch(/code/);
    }
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });

  it("needs an account token: 401 without, 403 for a guest", async () => {
    const [v] = await mint();
    expect(
      (await user("/vouchers/redeem", { method: "PATCH", body: { code: v.code } })).status,
    ).toBe(401);
    expect(
      (
        await user("/vouchers/redeem", {
          method: "PATCH",
          body: { code: v.code },
          token: await guestToken(),
        })
      ).status,
    ).toBe(403);
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });
});

describe("POST /users/voucher-sign-up", () => {
  it("makes an account with the voucher's capability, signs it in and spends the voucher", async () => {
    const [v] = await mint({ capability: "uploadMusic" });
    const email = uniqueEmail("vip");
    const res = await user("/users/voucher-sign-up", {
      ip: uniqueIp(),
      body: { email, password: "correct horse battery", voucherCode: v.code, nickname: "VIP" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tokenType: "user",
      user: { email, nickname: "VIP", capabilities: ["uploadMusic"], emailVerified: false },
    });
    expect(await capabilitiesOf(res.body.token)).toEqual(["uploadMusic"]);
    expect((await voucherRow(v.code))!).toMatchObject({
      status: "REDEEMED",
      redeemedBy: res.body.user.uuid,
    });
    expect(await latestCode(email)).toMatch(/^\d{6}$/);
  });

  it("refuses a missing field with the catalogue's message, and writes nothing", async () => {
    const [v] = await mint();
    const before = await countRows("users");
    const email = uniqueEmail();
    for (const body of [
      { email, password: "correct horse battery" },
      { email, voucherCode: v.code },
      { password: "correct horse battery", voucherCode: v.code },
      {},
      { email, password: "", voucherCode: v.code },
    ]) {
      const res = await user("/users/voucher-sign-up", { ip: uniqueIp(), body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        message: MSG.voucherSignUpMissing,
        error: "Bad Request",
      });
    }
    const bad = await user("/users/voucher-sign-up", {
      ip: uniqueIp(),
      body: { email: "nope", password: "short", voucherCode: v.code },
    });
    expect(bad.status).toBe(400);
    expect(messages(bad.body)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("email"),
        expect.stringContaining("password"),
      ]),
    );
    expect(await countRows("users")).toBe(before);
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });

  it("refuses a taken e-mail (403) without spending the voucher", async () => {
    const a = await signUp();
    const [v] = await mint();
    const res = await user("/users/voucher-sign-up", {
      ip: uniqueIp(),
      body: {
        email: a.email.toUpperCase(),
        password: "correct horse battery",
        voucherCode: v.code,
      },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.emailTaken);
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });

  it("without a good voucher, a registered and an unregistered address get the same answer (no enumeration)", async () => {
    const a = await signUp();
    const answers = [];
    for (const email of [a.email, uniqueEmail("nobody")]) {
      const res = await user("/users/voucher-sign-up", {
        ip: uniqueIp(),
        body: { email, password: "correct horse battery", voucherCode: "ZZZZ-ZZZZ-ZZZZ" },
      });
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ status: 403, body: { message: MSG.voucherInvalid } });
  });

  it("refuses an unknown, used or revoked voucher (403) and makes no account", async () => {
    const token = await adminToken();
    const [used, revoked] = await mint({ count: 2 });
    await user("/vouchers/redeem", {
      method: "PATCH",
      token: (await signUp()).token,
      body: { code: used.code },
    });
    await user(`/vouchers/${revoked.id}`, { method: "DELETE", token });
    for (const voucherCode of ["ZZZZ-ZZZZ-ZZZZ", used.code, revoked.code]) {
      const email = uniqueEmail();
      const res = await user("/users/voucher-sign-up", {
        ip: uniqueIp(),
        body: { email, password: "correct horse battery", voucherCode },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(MSG.voucherInvalid);
      expect(
        await db(env).select().from(users).where(eq(users.email, email)).get(),
      ).toBeUndefined();
    }
  });

  it("makes exactly one account when two sign-ups race for one voucher", async () => {
    const [v] = await mint();
    const emails = [uniqueEmail("racer"), uniqueEmail("racer")];
    const results = await Promise.all(
      emails.map((email) =>
        user("/users/voucher-sign-up", {
          ip: uniqueIp(),
          body: { email, password: "correct horse battery", voucherCode: v.code },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
    expect(results.find((r) => r.status === 403)!.body.message).toBe(MSG.voucherInvalid);
    expect(
      await db(env).select().from(users).where(inArray(users.email, emails)).all(),
    ).toHaveLength(1);
    expect((await voucherRow(v.code))!.redeemedBy).toBe(
      results.find((r) => r.status === 201)!.body.user.uuid,
    );
  });

  it("gives the voucher back when the account cannot be made (two sign-ups race for one e-mail)", async () => {
    for (let round = 0; round < 3; round++) {
      const [v, w] = await mint({ count: 2 });
      const email = uniqueEmail("same");
      const results = await Promise.all(
        [v, w].map((x) =>
          user("/users/voucher-sign-up", {
            ip: uniqueIp(),
            body: { email, password: "correct horse battery", voucherCode: x.code },
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
      expect(results.find((r) => r.status === 403)!.body.message).toBe(MSG.emailTaken);
      const statuses = [
        (await voucherRow(v.code))!.status,
        (await voucherRow(w.code))!.status,
      ].sort();
      expect(statuses).toEqual(["PENDING", "REDEEMED"]);
    }
  });

  it("is public, but a forged token is still 401", async () => {
    const [v] = await mint();
    const res = await user("/users/voucher-sign-up", {
      ip: uniqueIp(),
      body: { email: uniqueEmail(), password: "correct horse battery", voucherCode: v.code },
      token: "forged.token.x",
    });
    expect(res.status).toBe(401);
    expect((await voucherRow(v.code))!.status).toBe("PENDING");
  });
});

import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { devOutbox, userEmails } from "../workers/db/schema";
import { clientNet, RULES } from "../workers/lib/abuse-limits";
import { MSG } from "../workers/user-service/messages";
import { countRows, latestCode, outbox, signUp, uniqueEmail, uniqueIp, user } from "./helpers";

/**
 * Abuse limits (issue 13; docs/DECISIONS.md "Abuse limits"): the RateLimiter durable
 * object, the client-network keys, and every route the limits guard.
 */

const PASSWORD = "correct horse battery";
const signUpFrom = (ip: string, email = uniqueEmail("flood")) =>
  user("/users/sign-up", { ip, body: { email, password: PASSWORD } });
const loginFrom = (ip: string, email: string, password: string) =>
  user("/auth/login", { ip, body: { email, password } });
const mailsTo = async (to: string) =>
  (await db(env).select().from(devOutbox).where(eq(devOutbox.to, to)).all()).length;
const wrongCode = (right: string) => String((Number(right) + 1) % 1_000_000).padStart(6, "0");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let net = 0;
/** A fresh IPv6 /64 of our own (documentation prefix 2001:db8::/32). */
const uniqueNet6 = () =>
  `2001:db8:${(net++).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;

describe("the rules", () => {
  it("are the documented numbers", () => {
    const H = 3600_000;
    expect(RULES.signUpPerIp).toEqual({ limit: 5, periodMs: H });
    expect(RULES.voucherSignUpPerIp).toEqual({ limit: 10, periodMs: H });
    expect(RULES.addEmailPerAccount).toEqual({ limit: 5, periodMs: H });
    expect(RULES.addEmailPerTarget).toEqual({ limit: 10, periodMs: 24 * H });
    expect(RULES.mailPerTarget).toEqual({ limit: 5, periodMs: H });
    expect(RULES.codeGuessPerAddress).toEqual({ limit: 5, periodMs: 24 * H });
    expect(RULES.loginFailPerIp).toEqual({ limit: 30, periodMs: H / 4 });
    expect(RULES.loginFailPerTargetNet).toEqual({ limit: 5, periodMs: H / 4 });
    expect(RULES.loginFailPerTarget).toEqual({ limit: 100, periodMs: H });
  });
});

describe("clientNet", () => {
  it("keys IPv4 by address and IPv6 by its /64, whatever the spelling", () => {
    expect(clientNet("203.0.113.7")).toBe("203.0.113.7");
    expect(clientNet(" 203.0.113.7 ")).toBe("203.0.113.7");
    const n = "2001:db8:1:2::/64";
    expect(clientNet("2001:db8:1:2::1")).toBe(n);
    expect(clientNet("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe(n);
    expect(clientNet("2001:db8:1:2:0:0:0:9")).toBe(n);
    expect(clientNet("[2001:db8:1:2::5]")).toBe(n);
    expect(clientNet("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientNet("::")).toBe("0:0:0:0::/64");
    expect(clientNet("2001:db8:1:3::1")).not.toBe(n);
  });

  it("reads an IPv4-mapped address as the IPv4 address it carries", () => {
    expect(clientNet("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientNet("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(clientNet("0:0:0:0:0:ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("keeps junk apart and puts a missing header in one bucket", () => {
    expect(clientNet(undefined)).toBe("unknown");
    expect(clientNet("")).toBe("unknown");
    expect(clientNet("1:2:3::4::5")).toBe("other:1:2:3::4::5");
    expect(clientNet("300.1.1.1")).toBe("other:300.1.1.1");
    expect(clientNet("x".repeat(500))).toHaveLength(70);
  });
});

describe("the RateLimiter object", () => {
  it("lets exactly the limit through under parallel takes, then says how long to wait", async () => {
    const stub = env.RateLimiter.getByName("signUpPerIp:192.0.2.200");
    const results = await Promise.all(
      Array.from({ length: 20 }, () => stub.take("signUpPerIp", "192.0.2.200")),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(RULES.signUpPerIp.limit);
    const refused = results.find((r) => !r.ok)!;
    expect(refused.retryAfterSeconds).toBeGreaterThan(3500);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600);
    await stub.give("signUpPerIp", "192.0.2.200");
    expect((await stub.take("signUpPerIp", "192.0.2.200")).ok).toBe(true);
    const refusedRule = await stub.take("noSuchRule", "x").then(
      () => null,
      (e: Error) => e,
    );
    expect(refusedRule?.message).toMatch(/Unknown rate-limit rule/);
  });

  it("keeps its hits through an eviction (abortAllDurableObjects)", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < RULES.signUpPerIp.limit; i++)
      expect((await signUpFrom(ip)).status).toBe(201);
    await abortAllDurableObjects();
    const res = await signUpFrom(ip);
    expect(res.status).toBe(429);
    expect(await env.RateLimiter.getByName(`signUpPerIp:${ip}`).peek("signUpPerIp", ip)).toBe(5);
  });

  it("forgets a key once its hits have expired (the alarm deletes the row)", async () => {
    // A fresh stub each time: one used before abortAllDurableObjects stays broken.
    const stub = () => env.RateLimiter.getByName("roomEdit:room-x") as unknown as DurableObjectStub;
    const inObject = <T>(fn: (state: DurableObjectState) => T) =>
      runInDurableObject(stub(), (_o, state) => fn(state));
    const rows = () => inObject((s) => s.storage.sql.exec(`SELECT times FROM hits`).toArray());
    expect(
      (await env.RateLimiter.getByName("roomEdit:room-x").take("roomEdit", "room-x", 3)).remaining,
    ).toBe(27);
    expect(await rows()).toHaveLength(1);
    // A minute and more passes: the stored hits are older than the window. The object is
    // evicted so the alarm reads storage, not its memory.
    await inObject((s) =>
      s.storage.sql.exec(`UPDATE hits SET times = ?`, JSON.stringify([Date.now() - 61_000])),
    );
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect(await rows()).toHaveLength(0);
    expect(await env.RateLimiter.getByName("roomEdit:room-x").peek("roomEdit", "room-x")).toBe(0);
  });
});

describe("sign-up limits", () => {
  it("a flood of sign-ups from one address: 429 past the limit, no account; another address is fine", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < RULES.signUpPerIp.limit; i++)
      expect((await signUpFrom(ip)).status).toBe(201);
    const users = await countRows("users");
    const email = uniqueEmail("refused");
    const res = await signUpFrom(ip, email);
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(
      /^Too many accounts were made from your network\. Please try again in \d+ minutes\.$/,
    );
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await countRows("users")).toBe(users);
    await sleep(1500);
    expect(await mailsTo(email)).toBe(0);
    expect((await signUpFrom(uniqueIp())).status).toBe(201);
  });

  it("two IPv6 addresses in one /64 share a budget; the next /64 has its own", async () => {
    const p = uniqueNet6();
    for (let i = 0; i < RULES.signUpPerIp.limit; i++)
      expect((await signUpFrom(`${p}:${i.toString(16)}::${i + 1}`)).status).toBe(201);
    expect((await signUpFrom(`${p}:ffff:ffff:ffff:ffff`)).status).toBe(429);
    expect((await signUpFrom(`${p}::abcd`)).status).toBe(429);
    expect((await signUpFrom(`${uniqueNet6()}::1`)).status).toBe(201);
  });

  it("voucher sign-ups are limited per address too, before the voucher is looked at", async () => {
    const ip = uniqueIp();
    const attempt = () =>
      user("/users/voucher-sign-up", {
        ip,
        body: { email: uniqueEmail("v"), password: PASSWORD, voucherCode: "NOPE-NOPE" },
      });
    for (let i = 0; i < RULES.voucherSignUpPerIp.limit; i++)
      expect((await attempt()).status).toBe(403);
    const res = await attempt();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});

describe("adding e-mails and sending mail", () => {
  it("an add-email flood: 429 past the limit, no row and no mail for the refused address", async () => {
    const a = await signUp();
    const added: string[] = [];
    for (let i = 0; i < RULES.addEmailPerAccount.limit; i++) {
      const email = uniqueEmail("spam");
      added.push(email);
      expect((await user("/users/emails", { token: a.token, body: { email } })).status).toBe(201);
    }
    const victim = uniqueEmail("victim");
    const res = await user("/users/emails", { token: a.token, body: { email: victim } });
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(/^Too many e-mail addresses were added; no mail was sent\./);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    await outbox(added[added.length - 1]);
    await sleep(1500);
    expect(await mailsTo(victim)).toBe(0);
    expect(
      await db(env).select().from(userEmails).where(eq(userEmails.email, victim)).all(),
    ).toEqual([]);
  });

  it("one address is added by at most 10 accounts a day", async () => {
    const target = uniqueEmail("popular");
    for (let i = 0; i < RULES.addEmailPerTarget.limit; i++) {
      const a = await signUp();
      expect(
        (await user("/users/emails", { token: a.token, body: { email: target } })).status,
      ).toBe(201);
    }
    const late = await signUp();
    const res = await user("/users/emails", { token: late.token, body: { email: target } });
    expect(res.status).toBe(429);
    // A different case is the same address.
    const upper = await user("/users/emails", {
      token: late.token,
      body: { email: target.toUpperCase() },
    });
    expect(upper.status).toBe(429);
  });

  it("reset mails: at most 5 requests an hour per address, known or not (same answer)", async () => {
    const a = await signUp();
    for (const email of [a.email, uniqueEmail("nobody")]) {
      for (let i = 0; i < RULES.mailPerTarget.limit; i++)
        expect((await user("/users/forgot-password", { body: { email } })).status).toBe(201);
      const res = await user("/users/forgot-password", { body: { email } });
      expect(res.status).toBe(429);
      expect(res.body.message).toMatch(/^Too many e-mails were sent to this address/);
    }
  });

  it("a resend does not re-arm the guesses: 4 wrong, resend, 2 more wrong, then locked", async () => {
    const a = await signUp();
    const first = await latestCode(a.email);
    const verify = (code: string) =>
      user("/users/emails/verify", { token: a.token, body: { email: a.email, code } });
    for (let i = 0; i < 4; i++) expect((await verify(wrongCode(first))).status).toBe(403);
    // A minute passes, so a resend is allowed.
    await env.DB.prepare(
      "update user_emails set code_sent_at = code_sent_at - 61000 where email = ?",
    )
      .bind(a.email)
      .run();
    expect(
      (await user("/users/emails/verification-email", { token: a.token, body: { email: a.email } }))
        .status,
    ).toBe(201);
    const second = await latestCode(a.email, 2);
    expect((await verify(wrongCode(second))).status).toBe(403);
    const locked = await verify(wrongCode(second));
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/^Too many wrong verification codes for this address/);
    expect((await verify(second)).status).toBe(429);
    expect((await user("/auth/session", { token: a.token })).body.user.emailVerified).toBe(false);
  });
});

describe("login limits", () => {
  it("an attacker's wrong passwords lock only the attacker's network; the owner still logs in", async () => {
    const victim = await signUp();
    const attacker = uniqueIp();
    for (let i = 0; i < RULES.loginFailPerTargetNet.limit; i++)
      expect((await loginFrom(attacker, victim.email, `guess ${i}`)).status).toBe(401);
    const blocked = await loginFrom(attacker, victim.email, victim.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/^Too many failed login attempts/);
    // The owner, from their own address, signs in, and can still ask for a reset mail.
    expect((await loginFrom(uniqueIp(), victim.email, victim.password)).status).toBe(200);
    const reset = await user("/users/forgot-password", {
      ip: attacker,
      body: { email: victim.email },
    });
    expect(reset.status).toBe(201);
    expect(reset.body.message).toBe(MSG.forgotPasswordSent);
    const [mail] = await outbox(victim.email, 2);
    expect(mail.subject).toBe("Reset your Hangout password");
  });

  it("rotating addresses inside one IPv6 /64 does not buy more guesses", async () => {
    const victim = await signUp();
    const p = uniqueNet6();
    for (let i = 0; i < RULES.loginFailPerTargetNet.limit; i++)
      expect((await loginFrom(`${p}::${i + 1}`, victim.email, `guess ${i}`)).status).toBe(401);
    expect((await loginFrom(`${p}:1:2:3:4`, victim.email, victim.password)).status).toBe(429);
    expect((await loginFrom(`${uniqueNet6()}::1`, victim.email, victim.password)).status).toBe(200);
  });

  it("the failures survive an eviction", async () => {
    const victim = await signUp();
    const attacker = uniqueIp();
    for (let i = 0; i < RULES.loginFailPerTargetNet.limit; i++)
      await loginFrom(attacker, victim.email, `guess ${i}`);
    await abortAllDurableObjects();
    expect((await loginFrom(attacker, victim.email, victim.password)).status).toBe(429);
  });
});

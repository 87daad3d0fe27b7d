import { and, eq, gt, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { textMode } from "../adapters/text-messages";
import { db } from "../db/client";
import {
  phoneCodes,
  phoneWhitelist,
  TEXT_CHANNELS,
  userPhones,
  users,
  type UserRow,
} from "../db/schema";
import type { AppEnv, Env } from "../env";
import { clientNet } from "../lib/abuse-limits";
import { phoneContactHashOrNull } from "../lib/contact-hash";
import { secretsEqual, sha256, sixDigitCode } from "../lib/crypto";
import { ApiError, forbidden, isUniqueViolation } from "../lib/errors";
import { publicOrigin } from "../lib/links";
import { MAX_PHONE_INPUT, parsePhone, phonePrefix, type ParsedPhone } from "../lib/phones";
import { takeAttempt, type Take } from "../lib/rate-limit";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { defaultNickname, issueSession, toOwnProfile } from "./accounts";
import { MSG } from "./messages";
import { checkPhone, CODE_TTL_MS, MAX_ATTEMPTS_PER_CODE } from "./phone-validation";
import { defaultAvatarFor } from "../merch-service/avatars/default-avatar";

/**
 * Mobile sign-in (seed 000 "Mobile auth", "Code delivery channel": sms, whatsapp). A code
 * texted to a number proves the caller holds it; the number then signs in the account it
 * belongs to, makes one, or (for a signed-in caller) becomes their account's number. A
 * number belongs to one account (user_phones.phone is unique).
 *
 * Costs and abuse: every text costs money and toll-fraud rings pump premium ranges through
 * sign-in forms, so sending is limited per number, per client network and per number range
 * (RULES.textCode*), and only real mobile numbers get texts (no VoIP, no landlines, no
 * premium ranges: checkPhone). Guessing is limited per code (5) and per number (10 a day).
 */
export const mobileAuthRoutes = new Hono<AppEnv>();

const phoneField = z
  .string({ error: "phone must be a string" })
  .min(1, "phone should not be empty")
  .max(MAX_PHONE_INPUT, `phone must be at most ${MAX_PHONE_INPUT} characters`);

/** The parsed number or 400 with the spec's message: nothing else is ever texted or stored. */
async function validNumberOr400(input: string): Promise<ParsedPhone> {
  const parsed = await parsePhone(input);
  if (!parsed?.valid) throw new ApiError(400, MSG.phoneInvalid);
  return parsed;
}

const whitelisted = (env: Env, phone: string) =>
  db(env).select().from(phoneWhitelist).where(eq(phoneWhitelist.phone, phone)).get();

/** What a code is kept as: bound to its number, so a code hash says nothing about another. */
const codeHash = (phone: string, code: string) => sha256(`${phone}:${code}`);

const sendBody = z.strictObject({
  phone: phoneField,
  channel: z.enum(TEXT_CHANNELS, { error: "channel must be sms or whatsapp" }).default("sms"),
});

/**
 * POST /mobile-auth/send-code: texts a new six-digit code (the last one stops working). The
 * answer is the same for a whitelisted number, which gets no text: its fixed code works.
 */
mobileAuthRoutes.post("/mobile-auth/send-code", valid("json", sendBody), async (c) => {
  const { phone: input, channel } = c.req.valid("json");
  const parsed = await validNumberOr400(input);
  const net = clientNet(c.req.header("CF-Connecting-IP"));
  const expiresAt = new Date(Date.now() + CODE_TTL_MS).toISOString();
  const answer = { message: MSG.codeSent, channel, phoneNumber: parsed.phone, expiresAt };
  if (await whitelisted(c.env, parsed.phone)) {
    await takeAttempt(c.env, [{ rule: "textCodePerIp", key: net }], MSG.tooManyCodes);
    return c.json(answer);
  }
  if (textMode(c.env, channel) === "off") throw new ApiError(503, MSG.textChannelOff(channel));
  // Budgets first (one atomic step each), so parallel requests cannot all slip through; the
  // check below may cost a carrier lookup, which the network's budget pays for.
  const takes: Take[] = [
    { rule: "textCodePerIp", key: net },
    { rule: "textCodePerPhone", key: parsed.phone },
    { rule: "textCodePerPrefix", key: phonePrefix(parsed) },
  ];
  const taken = await takeAttempt(c.env, takes, MSG.tooManyCodes);
  const check = await checkPhone(c.env, parsed.phone);
  if (check.result !== "VALID") {
    // Nothing is texted: the number's and the range's budgets are given back.
    await taken.release(takes.slice(1));
    if (check.result === "VALIDATION_ERROR") throw new ApiError(503, MSG.phoneCheckFailed);
    throw new ApiError(400, MSG.phoneInvalid);
  }
  const code = sixDigitCode();
  const row = {
    phone: parsed.phone,
    codeHash: await codeHash(parsed.phone, code),
    channel,
    attempts: 0,
    expiresAt: Date.parse(expiresAt),
  };
  await db(c.env)
    .insert(phoneCodes)
    .values(row)
    .onConflictDoUpdate({ target: phoneCodes.phone, set: row })
    .run();
  // The last line is the WebOTP / SMS Retriever form (`@host #code`), so phones offer to fill
  // the code in, and only on our own site.
  const host = new URL(publicOrigin(c)).host;
  await c.env.NOTIFICATIONS.send({
    channel,
    id: crypto.randomUUID(),
    to: parsed.phone,
    text: `Your Hangout code is ${code}. It works once, for 10 minutes. Never share it.\n\n@${host} #${code}`,
  });
  await audit(c, "user.phone-code-sent", c.get("caller")?.uuid ?? null, {
    channel,
    country: parsed.country,
  });
  return c.json(answer);
});

const verifyBody = z.strictObject({
  phone: phoneField,
  code: z
    .string({ error: "code must be a string" })
    .regex(/^\d{4,8}$/, "code must be 4 to 8 digits"),
  /** For a new account; otherwise ignored. */
  nickname: fields.nickname.optional(),
});

/**
 * Spends the number's code if `code` is it: one statement deletes the row only when the hash
 * matches and it has not expired, so of two racing verifies one signs in. A wrong code
 * counts against it; its fifth wrong guess deletes it.
 */
async function spendCode(env: Env, phone: string, code: string): Promise<boolean> {
  const d = db(env);
  const spent = await d
    .delete(phoneCodes)
    .where(
      and(
        eq(phoneCodes.phone, phone),
        eq(phoneCodes.codeHash, await codeHash(phone, code)),
        gt(phoneCodes.expiresAt, Date.now()),
      ),
    )
    .returning({ phone: phoneCodes.phone })
    .get();
  if (spent) return true;
  await d.batch([
    d
      .update(phoneCodes)
      .set({ attempts: sql`${phoneCodes.attempts} + 1` })
      .where(eq(phoneCodes.phone, phone)),
    d
      .delete(phoneCodes)
      .where(
        and(eq(phoneCodes.phone, phone), sql`${phoneCodes.attempts} >= ${MAX_ATTEMPTS_PER_CODE}`),
      ),
  ]);
  return false;
}

/** The account a number belongs to, deactivated ones included. */
const ownerOf = (env: Env, phone: string) =>
  db(env)
    .select({ user: users })
    .from(userPhones)
    .innerJoin(users, eq(users.id, userPhones.userId))
    .where(eq(userPhones.phone, phone))
    .get()
    .then((r) => r?.user);

/**
 * A new account for a verified number, its number row in the same batch (one transaction):
 * if another verify of the number won the race, the unique index refuses the number row
 * and no account is left behind. Null when that happened.
 */
async function createPhoneAccount(env: Env, phone: string, nickname?: string) {
  const d = db(env);
  const uuid = crypto.randomUUID();
  const hash = await phoneContactHashOrNull(env, phone);
  const avatarId = await defaultAvatarFor(env, uuid);
  try {
    await d.batch([
      d.insert(users).values({
        uuid,
        avatarId,
        email: null,
        // Never from the number: a nickname is public.
        nickname: nickname?.trim() || defaultNickname(null),
      }),
      d.insert(userPhones).values({
        userId: sql`(select id from users where uuid = ${uuid})`,
        phone,
        contactHash: hash,
      }),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return d.select().from(users).where(eq(users.uuid, uuid)).get() as Promise<UserRow>;
}

/**
 * POST /mobile-auth/verify-code: with the right code, signs in the number's account (200),
 * or makes one (201, `isNewUser`). A signed-in caller instead makes the number their
 * account's (replacing their old one); a number that is another account's is 409.
 */
mobileAuthRoutes.post("/mobile-auth/verify-code", valid("json", verifyBody), async (c) => {
  const { phone: input, code, nickname } = c.req.valid("json");
  const parsed = await validNumberOr400(input);
  const phone = parsed.phone;
  const guess: Take = { rule: "codeGuessPerPhone", key: phone };
  // Counted before the code is compared (a failure keeps it), as logins are.
  const attempt = await takeAttempt(c.env, [guess], MSG.tooManyPhoneGuesses);
  const fixed = await whitelisted(c.env, phone);
  const ok = fixed ? await secretsEqual(code, fixed.code) : await spendCode(c.env, phone, code);
  if (!ok) throw new ApiError(401, MSG.phoneCodeWrong);
  await attempt.reset([guess]);

  const who = c.get("caller");
  const owner = await ownerOf(c.env, phone);
  if (who?.type === "user" && who.user) {
    if (owner && owner.id !== who.user.id) throw new ApiError(409, MSG.phoneTaken);
    await linkNumber(c.env, who.user.id, phone);
    await audit(c, "user.phone-verified", who.uuid, { country: parsed.country });
    return c.json({ phoneNumber: phone, user: toOwnProfile(who.user) });
  }
  if (owner) {
    if (owner.deactivated) throw forbidden(MSG.accountDeactivated);
    const session = await issueSession(c.env, owner);
    await audit(c, "user.login", owner.uuid, { via: "phone" });
    return c.json({ ...session, isNewUser: false });
  }
  const made = await createPhoneAccount(c.env, phone, nickname);
  // Lost the race to another verify of this number: that one made the account; sign it in.
  const user = made ?? (await ownerOf(c.env, phone));
  if (!user) throw new ApiError(409, MSG.phoneTaken);
  if (made) await audit(c, "user.sign-up", user.uuid, { via: "phone", country: parsed.country });
  return c.json({ ...(await issueSession(c.env, user)), isNewUser: !!made }, made ? 201 : 200);
});

/** Makes `phone` the account's number (replacing its old one); 409 if another took it first. */
async function linkNumber(env: Env, userId: number, phone: string) {
  const row = { userId, phone, contactHash: await phoneContactHashOrNull(env, phone) };
  try {
    await db(env)
      .insert(userPhones)
      .values(row)
      .onConflictDoUpdate({ target: userPhones.userId, set: { ...row, verifiedAt: Date.now() } })
      .run();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(409, MSG.phoneTaken);
    throw err;
  }
}

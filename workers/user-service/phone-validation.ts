import { desc, eq, inArray, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { lookupLine } from "../adapters/phone-lookup";
import { textMode } from "../adapters/text-messages";
import { db } from "../db/client";
import { phoneCodes, phoneValidations, type PhoneResult } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { clientNet, RULES } from "../lib/abuse-limits";
import { caller, requireUser } from "../lib/auth";
import { takeSkip } from "../lib/paging";
import { MAX_PHONE_INPUT, parsePhone, type ParsedPhone } from "../lib/phones";
import { takeAttempt } from "../lib/rate-limit";
import { valid } from "../lib/validate";
import { ADMIN_ROLES } from "../../shared/roles";
import { MSG } from "./messages";

/**
 * Phone validation (seed 000 "Phone validation result": VALID, INVALID, VOIP,
 * VALIDATION_ERROR). Only real mobile numbers sign in: a VoIP number costs an attacker
 * nothing to hold, so it would make phone sign-in a free account factory.
 */
export const phoneValidationRoutes = new Hono<AppEnv>();

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_LENGTH = 6;
/** Wrong guesses one code survives; the next wrong one deletes it. */
export const MAX_ATTEMPTS_PER_CODE = 5;
/** How long recent validations are kept (the cron purges older ones). */
export const VALIDATION_RETENTION_MS = 30 * 24 * 3_600_000;

export interface PhoneCheck {
  result: PhoneResult;
  parsed: ParsedPhone | null;
  lineType: string | null;
}

/**
 * The one reading of a number: parsed with full metadata, then its line type from the
 * lookup adapter. Not a number, or a number type other than mobile: INVALID; VoIP: VOIP;
 * the lookup service failing: VALIDATION_ERROR (nothing is sent on a guess).
 */
export async function checkPhone(env: Env, input: string): Promise<PhoneCheck> {
  const parsed = await parsePhone(input);
  if (!parsed?.valid) return { result: "INVALID", parsed, lineType: null };
  const line = await lookupLine(env, parsed);
  const result: PhoneResult =
    line.kind === "error"
      ? "VALIDATION_ERROR"
      : line.kind === "voip"
        ? "VOIP"
        : line.kind === "mobile"
          ? "VALID"
          : "INVALID";
  return { result, parsed, lineType: line.lineType };
}

const phoneParam = z.object({
  phone: z
    .string()
    .min(1, "phone should not be empty")
    .max(MAX_PHONE_INPUT, `phone must be at most ${MAX_PHONE_INPUT} characters`),
});

/**
 * GET /phone-validation/validate/{phone}: the result for an international number
 * ("+447400123456"; "%2B" or "00" for the plus). Open to callers who are not signed in (the
 * app checks the number before sign-in), limited per client network; the check is kept in
 * the caller's recents when they are signed in.
 */
phoneValidationRoutes.get(
  "/phone-validation/validate/:phone",
  valid("param", phoneParam),
  async (c) => {
    await takeAttempt(
      c.env,
      [{ rule: "phoneValidatePerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
      MSG.tooManyValidations,
    );
    const input = c.req.valid("param").phone;
    const check = await checkPhone(c.env, input);
    const who = c.get("caller");
    await db(c.env)
      .insert(phoneValidations)
      .values({
        userId: who?.user?.id ?? null,
        phone: check.parsed?.phone ?? input.slice(0, MAX_PHONE_INPUT),
        result: check.result,
        lineType: check.lineType,
        country: check.parsed?.country ?? null,
      })
      .run();
    return c.json({
      result: check.result,
      valid: check.result === "VALID",
      phoneNumber: check.parsed?.phone ?? null,
      country: check.parsed?.country ?? null,
      lineType: check.lineType,
      message:
        check.result === "VALID"
          ? null
          : check.result === "VALIDATION_ERROR"
            ? MSG.phoneCheckFailed
            : MSG.phoneInvalid,
    });
  },
);

const recentsQuery = takeSkip(100, 20, 10_000).extend({
  all: z.enum(["true", "false"], { error: "all must be true or false" }).optional(),
});

/**
 * GET /phone-validation/recents: the caller's own recent validations, newest first; an admin
 * with `all=true` sees everyone's (fraud review).
 */
phoneValidationRoutes.get(
  "/phone-validation/recents",
  requireUser,
  valid("query", recentsQuery),
  async (c) => {
    const who = caller(c);
    const { take, skip, all } = c.req.valid("query");
    const everyone = all === "true" && who.roles.some((r) => ADMIN_ROLES.includes(r));
    const rows = await db(c.env)
      .select()
      .from(phoneValidations)
      .where(everyone ? undefined : eq(phoneValidations.userId, who.user.id))
      .orderBy(desc(phoneValidations.id))
      .limit(take)
      .offset(skip)
      .all();
    return c.json({
      data: rows.map((r) => ({
        id: r.id,
        phoneNumber: r.phone,
        result: r.result,
        lineType: r.lineType,
        country: r.country,
        createdAt: new Date(r.createdAt).toISOString(),
      })),
      take,
      skip,
    });
  },
);

/** DELETE /phone-validation/recents: forgets the caller's own recent validations. */
phoneValidationRoutes.delete("/phone-validation/recents", requireUser, async (c) => {
  const res = await db(c.env)
    .delete(phoneValidations)
    .where(eq(phoneValidations.userId, caller(c).user.id))
    .run();
  return c.json({ deleted: res.meta.changes ?? 0 });
});

const perPeriod = (r: { limit: number; periodMs: number }) => ({
  limit: r.limit,
  periodSeconds: r.periodMs / 1000,
});

/**
 * GET /phone-validation/fraudConstants: the limits in force, so an app can tell its user how
 * long to wait before it asks, and which channels work.
 */
phoneValidationRoutes.get("/phone-validation/fraudConstants", (c) =>
  c.json({
    codeLength: CODE_LENGTH,
    codeTtlSeconds: CODE_TTL_MS / 1000,
    maxAttemptsPerCode: MAX_ATTEMPTS_PER_CODE,
    voipAllowed: false,
    lineTypeSource: c.env.PHONE_LOOKUP_URL ? "carrier-lookup" : "number-ranges",
    channels: {
      sms: textMode(c.env, "sms") !== "off",
      whatsapp: textMode(c.env, "whatsapp") !== "off",
    },
    limits: {
      codesPerPhone: perPeriod(RULES.textCodePerPhone),
      codesPerNetwork: perPeriod(RULES.textCodePerIp),
      codesPerPrefix: perPeriod(RULES.textCodePerPrefix),
      wrongCodesPerPhone: perPeriod(RULES.codeGuessPerPhone),
      validationsPerNetwork: perPeriod(RULES.phoneValidatePerIp),
    },
  }),
);

const PURGE_BATCH = 1000;

/**
 * The cron's sweep (every minute): validations past retention and codes past their life, at
 * most PURGE_BATCH of each a run, so one run stays short whatever piled up.
 */
export async function purgePhoneData(env: Env, now = Date.now()) {
  const d = db(env);
  await d.batch([
    d.delete(phoneValidations).where(
      inArray(
        phoneValidations.id,
        d
          .select({ id: phoneValidations.id })
          .from(phoneValidations)
          .where(lt(phoneValidations.createdAt, now - VALIDATION_RETENTION_MS))
          .limit(PURGE_BATCH),
      ),
    ),
    d
      .delete(phoneCodes)
      .where(
        inArray(
          phoneCodes.phone,
          d
            .select({ phone: phoneCodes.phone })
            .from(phoneCodes)
            .where(lt(phoneCodes.expiresAt, now))
            .limit(PURGE_BATCH),
        ),
      ),
  ]);
}

import { env } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { vi } from "vitest";
import { db } from "../workers/db/client";
import { devOutbox } from "../workers/db/schema";
import { uniqueIp, user, type CallInit } from "./helpers";

/** Helpers for the phone tests (test/phone-*.test.ts). */

let n = 0;
/**
 * A Spanish mobile number of its own (+34 6xx: every such number is MOBILE in libphonenumber's
 * metadata), spread over the ranges +34 600 to +34 698 so no test fills another's range
 * budget; +34 699 is left to the range-limit test.
 */
export const mobileNumber = () => {
  const i = n++ + Math.floor(Math.random() * 1e6);
  return `+346${String(i % 99).padStart(2, "0")}${String(Math.floor(i / 99) % 1e6).padStart(6, "0")}`;
};

export const sendCode = (phone: string, init: Omit<CallInit, "body"> & { channel?: string } = {}) =>
  user("/mobile-auth/send-code", {
    ip: init.ip ?? uniqueIp(),
    token: init.token,
    body: { phone, ...(init.channel ? { channel: init.channel } : {}) },
  });

export const verifyCode = (
  phone: string,
  code: string,
  init: CallInit & { nickname?: string } = {},
) =>
  user("/mobile-auth/verify-code", {
    ip: init.ip,
    token: init.token,
    body: { phone, code, ...(init.nickname ? { nickname: init.nickname } : {}) },
  });

/** The texts the dev outbox holds for `phone`, newest first, once `count` arrived. */
export const textsTo = (phone: string, count = 1, channel = "sms") =>
  vi.waitFor(
    async () => {
      const rows = await db(env)
        .select()
        .from(devOutbox)
        .where(and(eq(devOutbox.to, phone), eq(devOutbox.channel, channel as "sms")))
        .orderBy(desc(devOutbox.id))
        .all();
      if (rows.length < count) throw new Error(`waiting for ${count} text(s) to ${phone}`);
      return rows;
    },
    { timeout: 5000, interval: 50 },
  );

/** The code in the newest text to `phone`. */
export async function textedCode(phone: string, count = 1, channel = "sms") {
  const [t] = await textsTo(phone, count, channel);
  return t.text.match(/\b(\d{6})\b/)![1];
}

/** Sends a code and reads it back: the whole first half of a sign-in. */
export async function codeFor(phone: string, count = 1) {
  const sent = await sendCode(phone);
  if (sent.status !== 200) throw new Error(`send-code ${sent.status} ${JSON.stringify(sent.body)}`);
  return textedCode(phone, count);
}

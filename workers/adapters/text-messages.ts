import { db } from "../db/client";
import { devOutbox, type TextChannel } from "../db/schema";
import type { Env } from "../env";
import { isDevEnvironment } from "../lib/environments";

export interface TextMessage {
  id: string;
  channel: TextChannel;
  /** E.164. */
  to: string;
  text: string;
}

export const TEXT_TIMEOUT_MS = 10_000;

const settings = (env: Env, channel: TextChannel) =>
  channel === "sms"
    ? { url: env.SMS_API_URL, key: env.SMS_API_KEY }
    : { url: env.WHATSAPP_API_URL, key: env.WHATSAPP_API_KEY };

/**
 * Where a channel's messages go, as for e-mail (adapters/email.ts): its provider when its
 * URL is set, the dev outbox only in development and test, otherwise nowhere. A channel that
 * is "off" is refused before a code is made (mobile-auth.ts), so nobody waits for a text
 * that will never come.
 */
export type TextMode = "provider" | "outbox" | "off";
export const textMode = (env: Env, channel: TextChannel): TextMode =>
  settings(env, channel).url ? "provider" : isDevEnvironment(env) ? "outbox" : "off";

/**
 * Sends one text. With a provider: `POST <url>` with `{ channel, to, text }` as JSON, a bearer
 * key and the message id as Idempotency-Key (a redelivered queue message must not text twice
 * where the provider can tell). A failure throws so the queue retries it.
 */
export async function sendText(env: Env, msg: TextMessage): Promise<void> {
  const mode = textMode(env, msg.channel);
  if (mode === "off") {
    console.error(`${msg.channel} is not configured: dropped message ${msg.id}`);
    return;
  }
  if (mode === "outbox") {
    await db(env)
      .insert(devOutbox)
      .values({
        channel: msg.channel,
        to: msg.to,
        subject: msg.channel === "sms" ? "SMS" : "WhatsApp",
        text: msg.text,
        html: null,
        messageId: msg.id,
      })
      .onConflictDoNothing({ target: devOutbox.messageId })
      .run();
    return;
  }
  const { url, key } = settings(env, msg.channel);
  const res = await fetch(url!, {
    method: "POST",
    signal: AbortSignal.timeout(TEXT_TIMEOUT_MS),
    headers: {
      "Content-Type": "application/json",
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      "Idempotency-Key": msg.id,
    },
    body: JSON.stringify({ channel: msg.channel, to: msg.to, text: msg.text }),
  });
  if (!res.ok) throw new Error(`${msg.channel} provider answered ${res.status}`);
}

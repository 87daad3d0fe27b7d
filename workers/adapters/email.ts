import { db } from "../db/client";
import { devOutbox } from "../db/schema";
import type { Env } from "../env";
import type { NotificationMessage } from "../queues/notifications";

type Email = Extract<NotificationMessage, { channel: "email" }>;

export const EMAIL_TIMEOUT_MS = 10_000;

/**
 * The e-mail adapter. With `EMAIL_API_URL` set it posts the message as JSON to the provider
 * (a Resend/Postmark-style `POST { from, to, subject, text, html }` with a bearer key);
 * with nothing configured it lands in the dev outbox (D1 `dev_outbox`, page `/dev/outbox`).
 * A failure throws so the queue retries the message.
 */
export async function sendEmail(env: Env, mail: Email): Promise<void> {
  if (!env.EMAIL_API_URL) {
    await db(env)
      .insert(devOutbox)
      .values({
        channel: "email",
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html ?? null,
        messageId: mail.id,
      })
      .onConflictDoNothing({ target: devOutbox.messageId })
      .run();
    return;
  }
  const res = await fetch(env.EMAIL_API_URL, {
    method: "POST",
    // A provider that never answers must fail the message (and so retry it), not hold the
    // queue consumer until the platform kills it, as DECISIONS.md has for every outside call.
    signal: AbortSignal.timeout(EMAIL_TIMEOUT_MS),
    headers: {
      "Content-Type": "application/json",
      ...(env.EMAIL_API_KEY ? { Authorization: `Bearer ${env.EMAIL_API_KEY}` } : {}),
      "Idempotency-Key": mail.id,
    },
    body: JSON.stringify({
      from: env.EMAIL_FROM ?? "Hangout <no-reply@hangout.local>",
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    }),
  });
  if (!res.ok) throw new Error(`e-mail provider answered ${res.status}`);
}

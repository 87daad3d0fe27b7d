import { db } from "../db/client";
import { devOutbox } from "../db/schema";
import type { Env } from "../env";
import { isDevEnvironment } from "../lib/environments";
import type { NotificationMessage } from "../queues/notifications";

type Email = Extract<NotificationMessage, { channel: "email" }>;

export const EMAIL_TIMEOUT_MS = 10_000;

/**
 * Where mail goes: the provider when `EMAIL_API_URL` is set; the dev outbox only in
 * development and test; otherwise nowhere (issue 13: a production deploy without a provider
 * must not write verification codes and reset links into a table, and says so on its status
 * check, workers/lib/service.ts, which answers 503 until a provider is configured).
 */
export type MailMode = "provider" | "outbox" | "off";
export const mailMode = (env: Pick<Env, "EMAIL_API_URL" | "ENVIRONMENT">): MailMode =>
  env.EMAIL_API_URL ? "provider" : isDevEnvironment(env) ? "outbox" : "off";

/**
 * The e-mail adapter. With `EMAIL_API_URL` set it posts the message as JSON to the provider
 * (a Resend/Postmark-style `POST { from, to, subject, text, html }` with a bearer key);
 * with nothing configured it lands in the dev outbox (D1 `dev_outbox`, page `/dev/outbox`).
 * A failure throws so the queue retries the message.
 */
export async function sendEmail(env: Env, mail: Email): Promise<void> {
  const mode = mailMode(env);
  if (mode === "off") {
    // Queued before the provider went away: dropped, never written anywhere readable.
    console.error(`e-mail is not configured: dropped mail ${mail.id}`);
    return;
  }
  if (mode === "outbox") {
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
  // mode === "provider": EMAIL_API_URL is set.
  const res = await fetch(env.EMAIL_API_URL!, {
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

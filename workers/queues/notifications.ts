import { z } from "zod";
import { mailMode, sendEmail } from "../adapters/email";
import { sendText } from "../adapters/text-messages";
import type { Env } from "../env";
import { boardsMessage, syncBoards } from "./board-visibility";
import { consumeFansMessage, fansMessage } from "./fan-notifications";
import { consumeUsersMessage, usersHousekeeping, usersMessage } from "./user-notifications";

/**
 * The notifications queue: everything the product would send to a person. Producers put a
 * message here and move on; the consumer hands each to its adapter and retries only the
 * ones that failed. Each message carries an id so a redelivery sends nothing twice where
 * the sink can tell (the dev outbox keys on it).
 */
export const notificationMessage = z.discriminatedUnion("channel", [
  z.object({
    channel: z.literal("email"),
    id: z.string().min(1),
    to: z.string().min(3),
    subject: z.string().min(1),
    text: z.string(),
    html: z.string().optional(),
  }),
  // A text (a sign-in code) to one number, by SMS or WhatsApp (adapters/text-messages.ts).
  ...(["sms", "whatsapp"] as const).map((channel) =>
    z.object({
      channel: z.literal(channel),
      id: z.string().min(1),
      to: z.string().regex(/^\+[1-9]\d{6,14}$/),
      text: z.string().min(1).max(1000),
    }),
  ),
  // A notification to up to 100 users: in-app row and push (user-notifications.ts; its
  // producer is `notifyUsers`, not `notify`).
  usersMessage,
  // One notification to every fan of a DJ, a page of fans at a time (fan-notifications.ts).
  fansMessage,
  // A deactivated or reactivated account's place on every ranking board (board-visibility.ts).
  boardsMessage,
]);
export type NotificationMessage = z.infer<typeof notificationMessage>;

/**
 * Queue a notification; `id` defaults to a fresh uuid. With no e-mail provider outside
 * development (adapters/email.ts `mailMode`), an e-mail is not queued at all.
 */
export async function notify(
  env: Env,
  msg: Omit<Extract<NotificationMessage, { channel: "email" }>, "id"> & { id?: string },
) {
  if (msg.channel === "email" && mailMode(env) === "off") {
    console.error(`e-mail is not configured: not sending "${msg.subject}"`);
    return;
  }
  await env.NOTIFICATIONS.send({
    ...msg,
    id: msg.id ?? crypto.randomUUID(),
  } as NotificationMessage);
}

export async function consumeNotifications(batch: MessageBatch<unknown>, env: Env) {
  let users = false;
  for (const message of batch.messages) {
    const parsed = notificationMessage.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message will never succeed; retrying it only blocks the queue.
      console.error("dropping malformed notification", parsed.error.issues);
      message.ack();
      continue;
    }
    try {
      switch (parsed.data.channel) {
        case "email":
          await sendEmail(env, parsed.data);
          break;
        case "sms":
        case "whatsapp":
          await sendText(env, parsed.data);
          break;
        case "users":
          users = true;
          await consumeUsersMessage(env, parsed.data);
          break;
        case "fans":
          await consumeFansMessage(env, parsed.data);
          break;
        case "boards":
          if (!(await syncBoards(env, parsed.data)))
            throw new Error("the account changed while its boards were set; setting them again");
          break;
      }
      message.ack();
    } catch (err) {
      console.error("notification failed, will retry", err);
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
  if (users)
    await usersHousekeeping(env).catch((err) => console.error("throttle sweep failed", err));
}

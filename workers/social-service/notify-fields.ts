import { z } from "zod";
import { NOTIFICATION_KINDS, NOTIFY_LIMITS } from "../../shared/notifications";
import { cleanText, fields } from "../lib/validate";

/** Body fields the sending routes share: bounded, clean text; bounded recipient lists. */
export const MAX_RECIPIENTS_PER_CALL = 1000;

export const titleField = z
  .string({ error: "title must be a string" })
  .trim()
  .min(1, "title should not be empty")
  .max(NOTIFY_LIMITS.title, `title must be at most ${NOTIFY_LIMITS.title} characters`)
  .refine((s) => cleanText(s), "title must not contain control characters or broken unicode");

export const bodyField = (name = "body") =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} should not be empty`)
    .max(NOTIFY_LIMITS.body, `${name} must be at most ${NOTIFY_LIMITS.body} characters`)
    .refine(
      (s) => cleanText(s, true),
      `${name} must not contain control characters or broken unicode`,
    );

export const dataField = z
  .record(z.string().max(64), z.unknown(), { error: "data must be an object" })
  .refine(
    (o) => JSON.stringify(o).length <= NOTIFY_LIMITS.dataBytes,
    `data must be at most ${NOTIFY_LIMITS.dataBytes} bytes of JSON`,
  );

export const userUuidsField = z
  .array(fields.uuid, { error: "userUuids must be a list of user uuids" })
  .min(1, "userUuids should not be empty")
  .max(MAX_RECIPIENTS_PER_CALL, `userUuids must hold at most ${MAX_RECIPIENTS_PER_CALL} users`);

export const kindField = z.enum(NOTIFICATION_KINDS, {
  error: `kind must be one of ${NOTIFICATION_KINDS.join(", ")}`,
});

/** What a sending route answers: the notification is queued, not yet delivered. */
export const queued = (r: { recipients: number; messages: number }) => ({ queued: true, ...r });

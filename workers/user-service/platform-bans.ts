import { and, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { MODERATOR_ROLES } from "../../shared/roles";
import { users } from "../db/schema";
import type { AppEnv } from "../env";
import { requireRole } from "../lib/auth";
import { activeBan, banMessage } from "../lib/bans";
import { ApiError } from "../lib/errors";
import { cleanText, fields, valid } from "../lib/validate";
import { tellUserRooms } from "../room-service/user-rooms";
import { toModeratedProfile } from "./accounts";
import { MSG } from "./messages";
import { actionTarget, moderate } from "./moderation-log";

/**
 * Platform kicks and bans (issue 15; seed 000 "Moderator-type calls", "Bans"). Who may act on
 * whom is moderation-rules.ts; each call writes a moderation action (moderation-log.ts).
 *
 * - A kick (`globalKick`) ends every session of the account (sessionVersion + 1, web sessions
 *   deleted) and closes its sockets in every room with the reason; the person may sign in
 *   again at once.
 * - A ban (`globalBan`, permanent) or a temporary ban (`temporaryBan`, 1 minute to 1 year) does
 *   the same (its web sessions are kept but dead: they read the ban) and then refuses the
 *   account everywhere (lib/bans.ts): every API call and sign-in
 *   is a 403 naming the ban and its end, every room refuses it at the gateway. A temporary ban
 *   ends by itself: the check compares its end with the clock on every call, so no job runs.
 *   Nothing the person owns is touched. A ban over a ban replaces it (a moderator may turn a
 *   temporary ban permanent, or shorten one); each call is its own action row.
 * - Unban (`globalUnBan`) lifts a ban in force (404 when there is none). Their old sessions
 *   stay ended: they sign in again.
 */
export const banRoutes = new Hono<AppEnv>();

/** A moderator's reason: one to 500 characters, shown to the person and kept in the log. */
export const reasonField = z
  .string({ error: "reason must be a string" })
  .trim()
  .min(1, "reason must not be empty")
  .max(500, "reason must be at most 500 characters")
  .refine((s) => cleanText(s, true), "reason must not contain control characters");

const MINUTE = 60_000;
/** The longest temporary ban; longer is a permanent ban. */
export const MAX_TEMPORARY_BAN_MS = 365 * 24 * 60 * MINUTE;

const kickBody = z.strictObject({ userUuid: fields.uuid, reason: reasonField.optional() });
const banBody = z.strictObject({ userUuid: fields.uuid, reason: reasonField });
const temporaryBanBody = z
  .strictObject({
    userUuid: fields.uuid,
    reason: reasonField,
    until: z
      .union([
        z.iso.datetime({ offset: true, error: "until must be an ISO date-time" }),
        z.number().int("until must be whole milliseconds"),
      ])
      .optional(),
    minutes: z
      .number({ error: "minutes must be a number" })
      .int("minutes must be a whole number")
      .min(1, "minutes must be at least 1")
      .max(
        MAX_TEMPORARY_BAN_MS / MINUTE,
        `minutes must be at most ${MAX_TEMPORARY_BAN_MS / MINUTE}`,
      )
      .optional(),
  })
  .refine((b) => (b.until === undefined) !== (b.minutes === undefined), MSG.banEndMissing);
// An unban's reason is optional (a ban's end needs none), kept in the log when given.
const unbanBody = z.strictObject({ userUuid: fields.uuid, reason: reasonField.optional() });

const mods = requireRole(...MODERATOR_ROLES);
/** Whether a ban is in force on the row at the statement's time. */
const banInForce = (now: number) =>
  and(isNotNull(users.bannedAt), or(isNull(users.bannedUntil), gt(users.bannedUntil, now)));
const endSessions = { sessionVersion: sql`${users.sessionVersion} + 1` };

banRoutes.post("/users/kick", mods, valid("json", kickBody), async (c) => {
  const { userUuid, reason } = c.req.valid("json");
  const { actor, target } = await actionTarget(c, userUuid);
  const updated = await moderate(
    c,
    target,
    { actionType: "globalKick", actorUuid: actor.uuid, reason },
    { set: endSessions, endSessions: true },
  );
  if (!updated) throw new ApiError(409, MSG.targetChanged);
  await tellUserRooms(c.env, target.uuid, MSG.kickNotice(reason));
  return c.json(toModeratedProfile(updated), 201);
});

/** Bans until `until` (null: for good) and closes the person's sockets with the ban's text. */
async function ban(c: Context<AppEnv>, userUuid: string, reason: string, until: number | null) {
  const { actor, target } = await actionTarget(c, userUuid);
  const updated = await moderate(
    c,
    target,
    {
      actionType: until === null ? "globalBan" : "temporaryBan",
      actorUuid: actor.uuid,
      reason,
      until,
    },
    // The web sessions stay: sessionVersion + 1 ends them for everything, and the browser's
    // next page load reads the ban's 403 on them (the web app's "your account is banned" page)
    // instead of finding itself signed out with no reason. After the ban they answer 401.
    { set: { ...endSessions, bannedAt: Date.now(), bannedUntil: until, banReason: reason } },
  );
  if (!updated) throw new ApiError(409, MSG.targetChanged);
  const inForce = activeBan(updated);
  await tellUserRooms(c.env, target.uuid, inForce ? banMessage(inForce) : MSG.kickNotice(reason));
  return c.json(toModeratedProfile(updated), 201);
}

banRoutes.post("/users/ban", mods, valid("json", banBody), async (c) => {
  const { userUuid, reason } = c.req.valid("json");
  return ban(c, userUuid, reason, null);
});

banRoutes.post("/users/temporary-ban", mods, valid("json", temporaryBanBody), async (c) => {
  const { userUuid, reason, until, minutes } = c.req.valid("json");
  const now = Date.now();
  const end = minutes !== undefined ? now + minutes * MINUTE : new Date(until!).getTime();
  if (!(end >= now + MINUTE - 1000 && end <= now + MAX_TEMPORARY_BAN_MS))
    throw new ApiError(400, MSG.banTooLong);
  return ban(c, userUuid, reason, end);
});

banRoutes.post("/users/unban", mods, valid("json", unbanBody), async (c) => {
  const { userUuid, reason } = c.req.valid("json");
  const { actor, target } = await actionTarget(c, userUuid);
  const now = Date.now();
  const updated = await moderate(
    c,
    target,
    {
      actionType: "globalUnBan",
      actorUuid: actor.uuid,
      reason,
      details: { lifted: target.banReason, until: target.bannedUntil },
    },
    {
      set: { bannedAt: null, bannedUntil: null, banReason: null },
      when: banInForce(now),
    },
  );
  if (!updated) throw new ApiError(404, MSG.notBanned);
  return c.json(toModeratedProfile(updated), 201);
});

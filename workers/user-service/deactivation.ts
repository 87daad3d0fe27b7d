import { and, asc, count, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { GUARD_DELAY_SECONDS, sendBoardSync } from "../queues/board-visibility";
import { users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { tellUserRooms } from "../room-service/user-rooms";
import { findAnyUserOr404, toModeratedProfile, toOwnProfile } from "./accounts";
import { MSG } from "./messages";
import { actionTarget, moderate, refuseIf } from "./moderation-log";
import { refusalToAct } from "./moderation-rules";
import { idOrUuid } from "./profiles";

/**
 * Deactivation (issue 15; seed 000 "Deactivation": a user requests it, a moderator can cancel
 * the request, an admin deactivates or reactivates). What it hides and keeps is in
 * docs/DECISIONS.md ("Platform moderation"): in short, `users.deactivated` hides the account
 * everywhere it is read (profiles, people lists, fans, friends, rooms, sign-in, every API
 * call) and deletes nothing, so reactivation (clearing the flag) restores all of it.
 *
 * - `POST /users/request-deactivate`: the signed-in user; asking twice keeps the first time.
 * - `POST /users/cancel-requested-deactivate {userUuid}`: the user themselves, or a moderator
 *   who outranks them (moderation-rules.ts).
 * - `GET /users/list-deactivate`: admins; pending requests oldest first, or
 *   `?state=deactivated` for the deactivated accounts.
 * - `DELETE /users/deactivate/{id}`: admins (outranking the target); ends every session and
 *   closes the person's sockets at once, as a ban does.
 * - `POST /users/reactivate/{id}`: admins; the person signs in again.
 * Each change is a moderation action (requestDeactivation, cancelDeactivationRequest,
 * deactivate, reactivate). Deactivate and reactivate also queue the job that hides or shows
 * the account on every ranking board (queues/board-visibility.ts): once, delayed, before the
 * D1 write, and once after it, so a request that dies in between is still followed by one.
 */
export const deactivationRoutes = new Hono<AppEnv>();

deactivationRoutes.post("/users/request-deactivate", requireUser, async (c) => {
  const me = caller(c, ["user"]);
  const updated = await moderate(
    c,
    me.user,
    { actionType: "requestDeactivation", actorUuid: me.uuid },
    { set: { deactivationRequestedAt: Date.now() }, when: isNull(users.deactivationRequestedAt) },
  );
  const now = updated ?? (await findAnyUserOr404(c.env, me.uuid));
  return c.json({ message: MSG.deactivationRequested, user: toOwnProfile(now) }, 201);
});

deactivationRoutes.post(
  "/users/cancel-requested-deactivate",
  requireUser,
  valid("json", z.strictObject({ userUuid: fields.uuid })),
  async (c) => {
    const actor = caller(c);
    const target = await findAnyUserOr404(c.env, c.req.valid("json").userUuid);
    // One's own request is one's own to withdraw; anyone else's needs a moderator above them.
    if (target.uuid !== actor.uuid) refuseIf(refusalToAct(actor, target));
    const updated = await moderate(
      c,
      target,
      { actionType: "cancelDeactivationRequest", actorUuid: actor.uuid },
      {
        set: { deactivationRequestedAt: null },
        when: and(isNotNull(users.deactivationRequestedAt), eq(users.deactivated, false)),
      },
    );
    if (!updated) throw new ApiError(404, MSG.deactivationNotRequested);
    return c.json({ message: MSG.deactivationCancelled, user: toModeratedProfile(updated) }, 201);
  },
);

const listQuery = takeSkip(100, 20, 10_000).extend({
  state: z
    .enum(["requested", "deactivated"], { error: "state must be requested or deactivated" })
    .default("requested"),
});

deactivationRoutes.get(
  "/users/list-deactivate",
  requireAdmin,
  valid("query", listQuery),
  async (c) => {
    const { take, skip, state } = c.req.valid("query");
    const where =
      state === "requested"
        ? and(isNotNull(users.deactivationRequestedAt), eq(users.deactivated, false))
        : eq(users.deactivated, true);
    const d = db(c.env);
    const [rows, total] = await d.batch([
      d
        .select()
        .from(users)
        .where(where)
        .orderBy(asc(state === "requested" ? users.deactivationRequestedAt : users.updatedAt))
        .limit(take)
        .offset(skip),
      d.select({ n: count() }).from(users).where(where),
    ]);
    return c.json({ data: rows.map(toOwnProfile), total: total[0]?.n ?? 0, take, skip });
  },
);

deactivationRoutes.delete(
  "/users/deactivate/:id",
  requireAdmin,
  valid("param", idOrUuid),
  async (c) => {
    const { actor, target } = await actionTarget(c, c.req.valid("param").id);
    await sendBoardSync(c.env, target.uuid, GUARD_DELAY_SECONDS);
    const updated = await moderate(
      c,
      target,
      {
        actionType: "deactivate",
        actorUuid: actor.uuid,
        details: { requestedAt: target.deactivationRequestedAt },
      },
      {
        set: { deactivated: true, sessionVersion: sql`${users.sessionVersion} + 1` },
        when: eq(users.deactivated, false),
        endSessions: true,
      },
    );
    if (!updated) throw new ApiError(409, MSG.alreadyDeactivated);
    await sendBoardSync(c.env, target.uuid);
    await tellUserRooms(c.env, target.uuid);
    return c.json(toOwnProfile(updated));
  },
);

deactivationRoutes.post(
  "/users/reactivate/:id",
  requireAdmin,
  valid("param", idOrUuid),
  async (c) => {
    const { actor, target } = await actionTarget(c, c.req.valid("param").id);
    await sendBoardSync(c.env, target.uuid, GUARD_DELAY_SECONDS);
    const updated = await moderate(
      c,
      target,
      { actionType: "reactivate", actorUuid: actor.uuid },
      {
        set: { deactivated: false, deactivationRequestedAt: null },
        when: eq(users.deactivated, true),
      },
    );
    if (!updated) throw new ApiError(409, MSG.notDeactivated);
    await sendBoardSync(c.env, target.uuid);
    return c.json(toOwnProfile(updated), 201);
  },
);

import { count, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { moderationActions } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { forbidden } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { findAnyUserOr404 } from "../user-service/accounts";
import { toActionDto } from "../user-service/moderation-log";
import { isModerator } from "../user-service/moderation-rules";
import { MSG } from "./messages";

/**
 * `GET /user-actions/{id}` (seed 001, Audit service): the moderation actions taken on user
 * {id} (a uuid), newest first, `take` (at most 100, default 50) and `skip`. A person reads
 * their own; moderator-type roles read anyone's; anyone else gets the spec's text
 * "Unauthorized to perform action." (403; no token is 401). Moderators see who acted; the
 * person themselves does not (`actorUuid: null`), so a ban cannot be turned on the moderator.
 */
export const userActionRoutes = new Hono<AppEnv>();

const param = z.object({ id: fields.uuid });

userActionRoutes.get(
  "/user-actions/:id",
  requireUser,
  valid("param", param),
  valid("query", takeSkip(100, 50, 10_000)),
  async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    const own = who.uuid === id;
    const moderator = isModerator(who.roles);
    if (!own && !moderator) throw forbidden(MSG.userActionsRefused);
    if (!own) await findAnyUserOr404(c.env, id);
    const { take, skip } = c.req.valid("query");
    const onUser = eq(moderationActions.targetUuid, id);
    const d = db(c.env);
    const [rows, [{ total }]] = await Promise.all([
      d
        .select()
        .from(moderationActions)
        .where(onUser)
        .orderBy(desc(moderationActions.id))
        .limit(take)
        .offset(skip)
        .all(),
      d.select({ total: count() }).from(moderationActions).where(onUser).all(),
    ]);
    const data = rows.map((r) => {
      const dto = toActionDto(r);
      return moderator ? dto : { ...dto, actorUuid: null };
    });
    return c.json({ data, total, skip, take });
  },
);

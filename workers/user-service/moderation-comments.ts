import { and, desc, eq, inArray, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { MODERATOR_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { moderationComments, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireRole } from "../lib/auth";
import { takeAttempt } from "../lib/rate-limit";
import { cleanText, fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { findAnyUserOr404, toModeratedProfile } from "./accounts";
import { historyOf, refuseIf } from "./moderation-log";
import { GRANTABLE_ROLES, refusalToAct, refusalToChangeRole } from "./moderation-rules";
import { MSG } from "./messages";
import { idOrUuid } from "./profiles";

/**
 * What moderators know about a user (issue 15): their notes (`/moderation-comments`, seed 000)
 * and the moderation history (`/users/{userId}/moderation-history`, ours), and the account as
 * the moderator may act on it (`/users/{userId}/moderation`, ours: the moderation page's state). Moderators and above only: the person never sees either. A note is not an action
 * on the account (nothing changes), so it is an audit event but no moderation action row.
 */
export const moderationCommentRoutes = new Hono<AppEnv>();

const mods = requireRole(...MODERATOR_ROLES);
export const MAX_COMMENT_LENGTH = 2000;

const commentBody = z.strictObject({
  userUuid: fields.uuid,
  comment: z
    .string({ error: "comment must be a string" })
    .trim()
    .min(1, "comment must not be empty")
    .max(MAX_COMMENT_LENGTH, `comment must be at most ${MAX_COMMENT_LENGTH} characters`)
    .refine((s) => cleanText(s, true), "comment must not contain control characters"),
});

/** Newest first; `before` is the last id of the previous page. */
const page = z.object({
  limit: fields.int(1, 100).default(20),
  before: fields.int(1, Number.MAX_SAFE_INTEGER).optional(),
});

moderationCommentRoutes.post(
  "/moderation-comments",
  mods,
  valid("json", commentBody),
  async (c) => {
    const { userUuid, comment } = c.req.valid("json");
    const author = caller(c);
    const target = await findAnyUserOr404(c.env, userUuid);
    // Notes are about others: a moderator's own file is for the others to keep.
    if (target.uuid === author.uuid) refuseIf("self");
    // A budget per moderator: a stolen or scripted moderator token cannot bury a file in notes.
    await takeAttempt(
      c.env,
      [{ rule: "moderationComment", key: author.uuid }],
      MSG.tooManyModerationComments,
    );
    const row = await db(c.env)
      .insert(moderationComments)
      .values({ targetUuid: target.uuid, authorUuid: author.uuid, comment })
      .returning()
      .get();
    await audit(c, "moderation.comment", author.uuid, {
      targetUuid: target.uuid,
      commentId: row.id,
    });
    return c.json(toCommentDto(row, author.user.nickname), 201);
  },
);

moderationCommentRoutes.get(
  "/moderation-comments/:id",
  mods,
  valid("param", idOrUuid),
  valid("query", page),
  async (c) => {
    const target = await findAnyUserOr404(c.env, c.req.valid("param").id);
    const { limit, before } = c.req.valid("query");
    const d = db(c.env);
    const rows = await d
      .select()
      .from(moderationComments)
      .where(
        and(
          eq(moderationComments.targetUuid, target.uuid),
          before === undefined ? undefined : lt(moderationComments.id, before),
        ),
      )
      .orderBy(desc(moderationComments.id))
      .limit(limit + 1)
      .all();
    const shown = rows.slice(0, limit);
    const authors = [...new Set(shown.map((r) => r.authorUuid))];
    const names = authors.length
      ? await d
          .select({ uuid: users.uuid, nickname: users.nickname })
          .from(users)
          .where(inArray(users.uuid, authors))
          .all()
      : [];
    const nick = new Map(names.map((n) => [n.uuid, n.nickname]));
    return c.json({
      data: shown.map((r) => toCommentDto(r, nick.get(r.authorUuid) ?? null)),
      nextBefore: rows.length > limit ? shown[shown.length - 1].id : null,
    });
  },
);

moderationCommentRoutes.get(
  "/users/:id/moderation-history",
  mods,
  valid("param", idOrUuid),
  valid("query", page),
  async (c) => {
    const target = await findAnyUserOr404(c.env, c.req.valid("param").id);
    const { limit, before } = c.req.valid("query");
    return c.json(await historyOf(c.env, target.uuid, limit, before));
  },
);

/**
 * The account as a moderator sees it, and what this moderator may do to it, from the same
 * table the action routes ask (moderation-rules.ts): the page offers only what would be
 * allowed, and the routes still check again.
 */
moderationCommentRoutes.get("/users/:id/moderation", mods, valid("param", idOrUuid), async (c) => {
  const actor = caller(c);
  const target = await findAnyUserOr404(c.env, c.req.valid("param").id);
  const refusal = refusalToAct(actor, target);
  return c.json({
    user: toModeratedProfile(target),
    mayAct: refusal === null,
    refusal,
    grantableRoles: GRANTABLE_ROLES.filter((r) => refusalToChangeRole(actor, target, r) === null),
  });
});

function toCommentDto(r: typeof moderationComments.$inferSelect, authorNickname: string | null) {
  return {
    id: r.id,
    targetUuid: r.targetUuid,
    authorUuid: r.authorUuid,
    authorNickname,
    comment: r.comment,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

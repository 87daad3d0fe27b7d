import { eq, inArray, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { USER_ROLES } from "../../shared/roles";
import { batchOf, db } from "../db/client";
import { moderationActions, users, type ModerationActionRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin } from "../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { findAnyUserOr404 } from "../user-service/accounts";
import { announce, toActionDto } from "../user-service/moderation-log";
import { MODERATION_ACTION_TYPES } from "../user-service/moderation-rules";
import { reasonField } from "../user-service/platform-bans";
import { MSG } from "./messages";

/**
 * The moderation action log for admins (seed 001 "Moderation action", Audit service:
 * `/moderation-actions`), over the `moderation_actions` table the user-service's moderation
 * calls fill (moderation-log.ts). Admins only: no token 401, anyone else 403.
 *
 * - `GET /` is the crud query language (lib/crud-query.ts) over the columns below; times are
 *   epoch milliseconds in filters (`createdAt||$gte||1700000000000`), ISO in answers.
 * - `POST /` and `POST /bulk` record actions taken elsewhere (a room-level banUser, an action
 *   from another tool): the caller is the actor, the time is now, the target must exist. They
 *   change no account: the user-service's calls do that (and record their own rows).
 * - The log is history, so it stays true: `PATCH`/`PUT /{id}` may change the reason only (a
 *   typo, a reason left out), each change an audit event keeping the old text; `DELETE` is
 *   refused (405) for every action. What was done is corrected by a new action (an unban).
 */
export const moderationActionRoutes = new Hono<AppEnv>();

/** How many actions one bulk call records: one batch, a few statements, a bounded body. */
export const BULK_MAX = 100;
const BODY_MAX_BYTES = 16 * 1024;
const BULK_BODY_MAX_BYTES = 512 * 1024;
const DETAILS_MAX_BYTES = 2048;
/** D1 binds at most 100 values per statement; a row binds 10 here. */
const ROWS_PER_INSERT = 9;

const ACTION_COLUMNS: Columns = {
  id: moderationActions.id,
  uuid: moderationActions.uuid,
  actionType: moderationActions.actionType,
  actorUuid: moderationActions.actorUuid,
  targetUuid: moderationActions.targetUuid,
  role: moderationActions.role,
  reason: moderationActions.reason,
  until: moderationActions.until,
  createdAt: moderationActions.createdAt,
};

/** The admin's shape of an action: the user-service's, plus the row id the routes take. */
export const toAdminActionDto = (r: ModerationActionRow) => ({ id: r.id, ...toActionDto(r) });

const jsonBytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;
const newAction = z.strictObject({
  actionType: z.enum(MODERATION_ACTION_TYPES),
  targetUuid: fields.uuid,
  reason: reasonField.optional(),
  previousRole: z.array(z.enum(USER_ROLES)).max(USER_ROLES.length).optional(),
  role: z.enum(USER_ROLES).optional(),
  until: z
    .union([
      z.iso.datetime({ offset: true, error: "until must be an ISO date-time" }),
      z.number().int("until must be whole milliseconds").min(0),
    ])
    .transform((v) => (typeof v === "number" ? v : Date.parse(v)))
    .optional(),
  details: z
    .record(z.string().max(100), z.unknown())
    .refine((d) => jsonBytes(d) <= DETAILS_MAX_BYTES, {
      message: `details must be at most ${DETAILS_MAX_BYTES} bytes`,
    })
    .optional(),
});
type NewAction = z.output<typeof newAction>;
const bulkBody = z.strictObject({
  bulk: z
    .array(newAction)
    .min(1, "bulk must hold at least one action")
    .max(BULK_MAX, `bulk must hold at most ${BULK_MAX} actions`),
});

const reasonOnly = (required: boolean) =>
  z
    .looseObject({ reason: required ? reasonField.nullable() : reasonField.nullable().optional() })
    .superRefine((body, ctx) => {
      const others = Object.keys(body).filter((k) => k !== "reason");
      if (others.length)
        ctx.addIssue({
          code: "custom",
          message: `${MSG.onlyReasonChanges} (${others.join(", ")})`,
        });
    });

const idParam = z.object({ id: z.string().min(1).max(64) });

const capped = (max: number) =>
  bodyLimit({
    maxSize: max,
    onError: () => {
      throw new ApiError(413, MSG.bodyTooLarge(max));
    },
  });

/** An action by row id or uuid, or 404. */
async function actionOr404(c: Context<AppEnv>, id: string) {
  const row = await db(c.env)
    .select()
    .from(moderationActions)
    .where(/^\d+$/.test(id) ? eq(moderationActions.id, Number(id)) : eq(moderationActions.uuid, id))
    .get();
  if (!row) throw new ApiError(404, MSG.actionNotFound);
  return row;
}

/** Writes `list` (targets checked) in one batch and queues each action's audit event. */
async function record(c: Context<AppEnv>, list: NewAction[]) {
  const actorUuid = caller(c).uuid;
  const at = Date.now();
  const rows = list.map((a) => ({
    uuid: crypto.randomUUID(),
    actionType: a.actionType,
    actorUuid,
    targetUuid: a.targetUuid,
    previousRole: a.previousRole ?? null,
    role: a.role ?? null,
    reason: a.reason ?? null,
    until: a.until ?? null,
    details: a.details ?? null,
    createdAt: at,
  }));
  const d = db(c.env);
  const inserts = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    inserts.push(
      d
        .insert(moderationActions)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .returning(),
    );
  // One batch is one transaction: the whole bulk lands, or none of it.
  const written = (await d.batch(batchOf(inserts))).flat() as ModerationActionRow[];
  await Promise.all(rows.map((r) => announce(c, r.uuid, r.targetUuid, r, at)));
  return written.sort((a, b) => a.id - b.id).map(toAdminActionDto);
}

moderationActionRoutes.get(
  "/moderation-actions",
  requireAdmin,
  valid("query", crudQuerySchema),
  async (c) =>
    c.json(
      await crudList(
        c.env,
        moderationActions,
        ACTION_COLUMNS,
        c.req.valid("query"),
        toAdminActionDto,
        { defaultSort: ["createdAt", "DESC"] },
      ),
    ),
);

moderationActionRoutes.post(
  "/moderation-actions",
  requireAdmin,
  capped(BODY_MAX_BYTES),
  valid("json", newAction),
  async (c) => {
    const body = c.req.valid("json");
    await findAnyUserOr404(c.env, body.targetUuid);
    const [dto] = await record(c, [body]);
    return c.json(dto, 201);
  },
);

moderationActionRoutes.post(
  "/moderation-actions/bulk",
  requireAdmin,
  capped(BULK_BODY_MAX_BYTES),
  valid("json", bulkBody),
  async (c) => {
    const { bulk } = c.req.valid("json");
    const wanted = [...new Set(bulk.map((a) => a.targetUuid))];
    const found = await db(c.env)
      .select({ uuid: users.uuid })
      .from(users)
      .where(inArray(users.uuid, wanted))
      .all();
    const known = new Set(found.map((u) => u.uuid));
    const missing = wanted.filter((u) => !known.has(u));
    // Nothing is recorded unless every target exists: a bulk is all or nothing.
    if (missing.length) throw new ApiError(404, MSG.targetsNotFound(missing.slice(0, 10)));
    return c.json(await record(c, bulk), 201);
  },
);

moderationActionRoutes.get(
  "/moderation-actions/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => c.json(toAdminActionDto(await actionOr404(c, c.req.valid("param").id))),
);

/** PATCH and PUT: the reason, and nothing else, changes; the old text stays in the audit trail. */
async function editReason(c: Context<AppEnv>, id: string, reason: string | null | undefined) {
  const row = await actionOr404(c, id);
  if (reason === undefined || reason === row.reason) return c.json(toAdminActionDto(row));
  // Only if the reason is still the one read: two admins editing at once cannot both log a
  // change "from" the same text; the second is told to read it again.
  const updated = await db(c.env)
    .update(moderationActions)
    .set({ reason })
    .where(
      sql`${moderationActions.id} = ${row.id} and ${moderationActions.reason} is ${row.reason}`,
    )
    .returning()
    .get();
  if (!updated) throw new ApiError(409, MSG.changedMeanwhile);
  const editor = caller(c).uuid;
  await audit(
    c,
    "moderation.reasonEdited",
    editor,
    { actionUuid: row.uuid, actionType: row.actionType, from: row.reason, to: reason },
    undefined,
    { actorUuid: editor, targetUuid: row.targetUuid },
  );
  return c.json(toAdminActionDto(updated));
}

moderationActionRoutes.patch(
  "/moderation-actions/:id",
  requireAdmin,
  capped(BODY_MAX_BYTES),
  valid("param", idParam),
  valid("json", reasonOnly(false)),
  (c) => editReason(c, c.req.valid("param").id, c.req.valid("json").reason),
);

moderationActionRoutes.put(
  "/moderation-actions/:id",
  requireAdmin,
  capped(BODY_MAX_BYTES),
  valid("param", idParam),
  valid("json", reasonOnly(true)),
  (c) => editReason(c, c.req.valid("param").id, c.req.valid("json").reason),
);

moderationActionRoutes.delete(
  "/moderation-actions/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    await actionOr404(c, c.req.valid("param").id);
    throw new ApiError(405, MSG.deleteRefused, { Allow: "GET, PATCH, PUT" });
  },
);

import { asc, count, desc, eq, gt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { events, type EventRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireUser, type Caller } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { limitOffset } from "../lib/paging";
import { valid } from "../lib/validate";
import {
  communityOr404,
  httpUrl,
  idParam,
  keyWhere,
  line,
  longText,
  slug60,
  slugClash,
  withSlug,
} from "./community-repo";
import { isAdmin, requireRoomAccess, roomOr404 } from "./room-repo";
import { MSG } from "./messages";

/** Events: public lists, create (signed in), host-or-admin edits, and the admin list. */
export const eventRoutes = new Hono<AppEnv>();

export function toEventDto(e: EventRow) {
  const iso = (n: number) => new Date(n).toISOString();
  return {
    id: e.id,
    uuid: e.uuid,
    slug: e.slug,
    name: e.name,
    description: e.description,
    roomId: e.roomId,
    communityId: e.communityId,
    hostUuid: e.hostUuid,
    startsAt: iso(e.startsAt),
    endsAt: iso(e.endsAt),
    imageUrl: e.imageUrl,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
  };
}

async function eventOr404(env: Env, id: string): Promise<EventRow> {
  const row = await db(env).select().from(events).where(keyWhere(events, id)).get();
  if (!row) throw new ApiError(404, MSG.eventNotFound);
  return row;
}

/** A time: an ISO 8601 string or epoch milliseconds, within years 2000..2100 (no overflowing dates reach D1). */
const time = (name: string) =>
  z
    .union(
      [
        z.iso
          .datetime({ offset: true, error: `${name} must be an ISO 8601 date-time` })
          .transform((s) => Date.parse(s)),
        z.number().int(),
      ],
      { error: `${name} must be an ISO date-time or epoch milliseconds` },
    )
    .refine(
      (n) => n >= Date.UTC(2000, 0, 1) && n <= Date.UTC(2100, 0, 1),
      `${name} must be between 2000 and 2100`,
    );
const ref = (name: string) =>
  z.union([z.number().int().positive().transform(String), z.string().trim().min(1).max(64)], {
    error: `${name} must be an id, uuid or slug`,
  });

const shape = {
  name: line("name", 1, 100),
  slug: slug60.optional(),
  description: longText("description", 2000).nullable().optional(),
  imageUrl: httpUrl("imageUrl").nullable().optional(),
  roomId: ref("roomId").nullable().optional(),
  communityId: ref("communityId").nullable().optional(),
  startsAt: time("startsAt"),
  endsAt: time("endsAt"),
};
const strict = <T extends z.ZodRawShape>(s: T) =>
  z.strictObject(s, {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `Unknown field(s): ${i.keys.join(", ")}`
        : "body must be a JSON object",
  });
const createBody = strict(shape).refine((b) => b.endsAt > b.startsAt, {
  message: MSG.eventEndsBeforeStart,
  path: ["endsAt"],
});
const patchBody = strict({
  ...shape,
  name: shape.name.optional(),
  startsAt: shape.startsAt.optional(),
  endsAt: shape.endsAt.optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), "Nothing to update.");

/** Resolves room and community references; a room needs its owner, an admin or a coOwner. */
async function links(
  env: Env,
  who: Caller,
  b: { roomId?: string | null; communityId?: string | null },
) {
  const out: { roomId?: number | null; communityId?: number | null } = {};
  if (b.roomId === null) out.roomId = null;
  else if (b.roomId !== undefined) {
    const room = await roomOr404(env, b.roomId);
    await requireRoomAccess(env, room, who, ["coOwner"], MSG.eventRoomRefused);
    out.roomId = room.id;
  }
  if (b.communityId === null) out.communityId = null;
  else if (b.communityId !== undefined)
    out.communityId = (await communityOr404(env, b.communityId)).id;
  return out;
}

const page = limitOffset(100, 20);

/** GET /events?limit&offset: every event, newest start first. */
eventRoutes.get("/events", valid("query", page), async (c) => {
  const { limit, offset } = c.req.valid("query");
  const [rows, [{ total }]] = await Promise.all([
    db(c.env)
      .select()
      .from(events)
      .orderBy(desc(events.startsAt), desc(events.id))
      .limit(limit)
      .offset(offset)
      .all(),
    db(c.env).select({ total: count() }).from(events).all(),
  ]);
  return c.json({ data: rows.map(toEventDto), total, limit, offset });
});

/** GET /events/upcoming?limit&offset: events not yet started, soonest first. Before /events/{id}. */
eventRoutes.get("/events/upcoming", valid("query", page), async (c) => {
  const { limit, offset } = c.req.valid("query");
  const where = gt(events.startsAt, Date.now());
  const [rows, [{ total }]] = await Promise.all([
    db(c.env)
      .select()
      .from(events)
      .where(where)
      .orderBy(asc(events.startsAt), asc(events.id))
      .limit(limit)
      .offset(offset)
      .all(),
    db(c.env).select({ total: count() }).from(events).where(where).all(),
  ]);
  return c.json({ data: rows.map(toEventDto), total, limit, offset });
});

eventRoutes.get(
  "/events/slug/:slug",
  valid("param", z.object({ slug: z.string().trim().min(1).max(64) })),
  async (c) => {
    const row = await db(c.env)
      .select()
      .from(events)
      .where(eq(events.slug, c.req.valid("param").slug.toLowerCase()))
      .get();
    if (!row) throw new ApiError(404, MSG.eventNotFound);
    return c.json(toEventDto(row));
  },
);

/** POST /events: the caller hosts; the slug comes from the name when absent; a taken slug is 409. */
eventRoutes.post("/events", requireUser, valid("json", createBody), async (c) => {
  const who = caller(c);
  const b = c.req.valid("json");
  const now = Date.now();
  const values = {
    uuid: crypto.randomUUID(),
    name: b.name,
    description: b.description ?? null,
    imageUrl: b.imageUrl ?? null,
    hostUuid: who.uuid,
    startsAt: b.startsAt,
    endsAt: b.endsAt,
    roomId: null,
    communityId: null,
    ...(await links(c.env, who, b)),
    createdAt: now,
    updatedAt: now,
  };
  const row = await withSlug(b.slug, b.name, MSG.eventSlugTaken, (slug) =>
    db(c.env)
      .insert(events)
      .values({ ...values, slug })
      .returning()
      .get(),
  );
  return c.json(toEventDto(row), 201);
});

eventRoutes.get("/events/:id", valid("param", idParam), async (c) =>
  c.json(toEventDto(await eventOr404(c.env, c.req.valid("param").id))),
);

function requireHost(e: EventRow, who: Caller) {
  if (e.hostUuid !== who.uuid && !isAdmin(who)) throw forbidden(MSG.eventHostOnly);
}

/** PATCH /events/{id}: host or admin; the merged times must still end after they start. */
eventRoutes.patch(
  "/events/:id",
  requireUser,
  valid("param", idParam),
  valid("json", patchBody),
  async (c) => {
    const who = caller(c);
    const e = await eventOr404(c.env, c.req.valid("param").id);
    requireHost(e, who);
    const { roomId, communityId, ...rest } = c.req.valid("json");
    if ((rest.endsAt ?? e.endsAt) <= (rest.startsAt ?? e.startsAt))
      throw new ApiError(400, MSG.eventEndsBeforeStart);
    const set = {
      ...rest,
      ...(await links(c.env, who, { roomId, communityId })),
      updatedAt: Date.now(),
    };
    const row = await db(c.env)
      .update(events)
      .set(set)
      .where(eq(events.id, e.id))
      .returning()
      .get()
      .catch(slugClash(MSG.eventSlugTaken));
    if (!row) throw new ApiError(404, MSG.eventNotFound);
    return c.json(toEventDto(row));
  },
);

eventRoutes.delete("/events/:id", requireUser, valid("param", idParam), async (c) => {
  const e = await eventOr404(c.env, c.req.valid("param").id);
  requireHost(e, caller(c));
  await db(c.env).delete(events).where(eq(events.id, e.id)).run();
  return c.json({ deleted: true, id: e.id });
});

const EVENT_COLUMNS: Columns = {
  id: events.id,
  uuid: events.uuid,
  slug: events.slug,
  name: events.name,
  description: events.description,
  roomId: events.roomId,
  communityId: events.communityId,
  hostUuid: events.hostUuid,
  startsAt: events.startsAt,
  endsAt: events.endsAt,
  createdAt: events.createdAt,
  updatedAt: events.updatedAt,
};

eventRoutes.get("/admin/events", requireAdmin, valid("query", crudQuerySchema), async (c) => {
  return c.json(
    await crudList(c.env, events, EVENT_COLUMNS, c.req.valid("query"), (r: EventRow) =>
      toEventDto(r),
    ),
  );
});

eventRoutes.get("/admin/events/:id", requireAdmin, valid("param", idParam), async (c) =>
  c.json(toEventDto(await eventOr404(c.env, c.req.valid("param").id))),
);

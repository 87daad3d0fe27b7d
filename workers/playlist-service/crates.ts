import { and, eq, isNull, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { crates } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAnyToken, requireService, requireUser } from "../lib/auth";
import { limitOffset, takeSkip } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import {
  copyCrate,
  crateDto,
  createCrate,
  deleteCrate,
  listAllCrates,
  listCrates,
  ownedCrate,
  readableCrate,
  updateCrate,
} from "./crate-repo";

/**
 * Crates (playlists): create, read, list, edit, delete and copy. Song routes are in
 * crate-songs.ts; the queue and likes crates in special-crates.ts, which is mounted first
 * so `/crate/queue` and `/crate/likes` never reach `/crate/:id`.
 */
export const crateRoutes = new Hono<AppEnv>();

export const crateFields = {
  crateName: z
    .string({ error: "crateName must be a string" })
    .trim()
    .max(100, "crateName must be at most 100 characters"),
  description: z
    .string({ error: "description must be a string" })
    .trim()
    .max(1000, "description must be at most 1000 characters")
    .nullable(),
  isPublic: z.boolean({ error: "isPublic must be a boolean" }),
};

// An empty or blank name on create means "give it the default name".
const createBody = z.object({
  crateName: crateFields.crateName.optional().transform((s) => s || undefined),
  description: crateFields.description.optional(),
  isPublic: crateFields.isPublic.optional(),
});

export const updateBody = z
  .object({
    crateName: crateFields.crateName.min(1, "crateName should not be empty").optional(),
    description: crateFields.description.optional(),
    isPublic: crateFields.isPublic.optional(),
  })
  .refine(
    (b) => b.crateName !== undefined || b.description !== undefined || b.isPublic !== undefined,
    "Nothing to update: send crateName, description or isPublic.",
  );

const includeSpecial = z
  .enum(["true", "false"], { error: "includeSpecial must be true or false" })
  .transform((v) => v === "true")
  .default(false);
const listQuery = limitOffset(100, 20).extend({ includeSpecial });
const idParam = z.object({ id: fields.uuid });

/** POST /crate: a new crate of the caller's ("New Playlist #N" when unnamed). */
crateRoutes.post("/crate", requireUser, valid("json", createBody), async (c) => {
  const crate = await createCrate(c.env, caller(c).uuid, c.req.valid("json"));
  await audit(c, "playlist.create", crate.userUuid, { crateUuid: crate.crateUuid });
  return c.json(crateDto(crate), 201);
});

/** GET /crate/user: the caller's crates; the queue and likes only with `includeSpecial=true`. */
crateRoutes.get("/crate/user", requireUser, valid("query", listQuery), async (c) => {
  const { limit, offset, includeSpecial } = c.req.valid("query");
  const where = and(
    eq(crates.userUuid, caller(c).uuid),
    includeSpecial ? undefined : isNull(crates.crateType),
  );
  return c.json(await listCrates(c.env, where, limit, offset));
});

/** GET /crate/user/{userUuid}: that user's public crates (all their own, for the user themself). */
crateRoutes.get(
  "/crate/user/:userUuid",
  requireAnyToken,
  valid("param", z.object({ userUuid: fields.uuid })),
  valid("query", listQuery),
  async (c) => {
    const { userUuid } = c.req.valid("param");
    const { limit, offset, includeSpecial } = c.req.valid("query");
    const self = c.get("caller")?.uuid === userUuid;
    const conditions: (SQL | undefined)[] = [eq(crates.userUuid, userUuid)];
    if (!self) conditions.push(eq(crates.isPublic, true));
    if (!self || !includeSpecial) conditions.push(isNull(crates.crateType));
    return c.json(await listCrates(c.env, and(...conditions), limit, offset));
  },
);

/** GET /crate/service: every crate, for other services (service key or admin). */
crateRoutes.get("/crate/service", requireService, valid("query", takeSkip(100, 20)), async (c) => {
  const { take, skip } = c.req.valid("query");
  return c.json(await listAllCrates(c.env, take, skip));
});

/** GET /crate/{id}: a public crate, or the caller's own. */
crateRoutes.get("/crate/:id", requireAnyToken, valid("param", idParam), async (c) => {
  return c.json(crateDto(await readableCrate(c.env, c.req.valid("param").id, c.get("caller"))));
});

/** PATCH /crate/{id}: name, description, visibility (owner only; the special crates keep their names). */
crateRoutes.patch(
  "/crate/:id",
  requireUser,
  valid("param", idParam),
  valid("json", updateBody),
  async (c) => {
    const crate = await ownedCrate(c.env, c.req.valid("param").id, caller(c));
    return c.json(crateDto(await updateCrate(c.env, crate, c.req.valid("json"))));
  },
);

/** DELETE /crate/{id}: owner only; the queue and likes cannot be deleted. */
crateRoutes.delete("/crate/:id", requireUser, valid("param", idParam), async (c) => {
  const crate = await ownedCrate(c.env, c.req.valid("param").id, caller(c));
  await deleteCrate(c.env, crate);
  await audit(c, "playlist.delete", crate.userUuid, {
    crateUuid: crate.crateUuid,
    crateName: crate.crateName,
  });
  return c.json({ crateUuid: crate.crateUuid, deleted: true });
});

/** PUT /crate/{crateId}/copy: a copy owned by the caller (the spec: only owners copy), "<name> (copy)" by default. */
crateRoutes.put(
  "/crate/:crateId/copy",
  requireUser,
  valid("param", z.object({ crateId: fields.uuid })),
  valid(
    "json",
    z.object({ crateName: crateFields.crateName.optional().transform((s) => s || undefined) }),
  ),
  async (c) => {
    const who = caller(c);
    const src = await ownedCrate(c.env, c.req.valid("param").crateId, who);
    // A long name plus " (copy)" is cut to the 100 characters a name may have.
    const name = c.req.valid("json").crateName ?? `${src.crateName.slice(0, 93)} (copy)`;
    return c.json(crateDto(await copyCrate(c.env, src, who.uuid, name)), 201);
  },
);

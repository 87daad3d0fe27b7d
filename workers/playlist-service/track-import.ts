import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { crateImports } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, notFound } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import { fields, valid } from "../lib/validate";
import { toSongDto } from "../songs/dto";
import { importSongSchema, importTrack } from "./catalogue-import";
import { reloadCrate, runBatch } from "../crates/crate-repo";
import { crateDto, ownedCrate } from "./crate-repo";
import { MSG } from "./messages";

/** Importing songs from providers into the catalogue, one at a time or into a crate. */
export const trackImportRoutes = new Hono<AppEnv>();

/**
 * POST /api/v1/track-import `{ song }`: `{ song: SongDto, created, verified }` (201 when a
 * row was made; verified false: kept as the caller's own song until the provider can be asked).
 */
trackImportRoutes.post(
  "/api/v1/track-import",
  requireUser,
  valid("json", z.object({ song: importSongSchema })),
  async (c) => {
    const { song, created, verified } = await importTrack(
      c.env,
      c.req.valid("json").song,
      caller(c),
    );
    return c.json({ song: toSongDto(song), created, verified }, created ? 201 : 200);
  },
);

const tracksBody = z.object({
  tracks: z
    .array(importSongSchema, { error: "tracks must be a list of songs" })
    .min(1, "tracks should not be empty")
    .max(100, "tracks must have at most 100 items"),
  /** The client's idempotency key: a retry with the same key is the same import. */
  importKey: z
    .string({ error: "importKey must be a string" })
    .trim()
    .min(1, "importKey should not be empty")
    .max(100, "importKey must be at most 100 characters")
    .optional(),
});

type ImportRow = typeof crateImports.$inferSelect;
const importDto = (r: ImportRow) => ({
  importId: r.importId,
  status: r.status,
  total: r.total,
  done: r.done,
  detail: r.detail,
  results: r.results,
});

/**
 * POST /api/v1/playlists/{crateUuid}/tracks `{ tracks, importKey? }` (owner only; the key
 * may come as the Idempotency-Key header): 202 `{ import, crate }`. The import runs in the
 * background (workers/queues/crate-imports.ts); the crate is IN_PROGRESS until it ends
 * COMPLETE, or FAILED when no song could be imported. Progress: GET .../imports/{importId}.
 *
 * The same key again answers the same import and appends nothing more; while that import
 * is unfinished the retry sends it on again, and it resumes where it was.
 */
trackImportRoutes.post(
  "/api/v1/playlists/:crateUuid/tracks",
  requireUser,
  valid("param", z.object({ crateUuid: fields.uuid })),
  valid("json", tracksBody),
  async (c) => {
    const who = caller(c);
    const crate = await ownedCrate(c.env, c.req.valid("param").crateUuid, who);
    const { tracks, importKey: bodyKey } = c.req.valid("json");
    const headerKey = c.req.header("Idempotency-Key")?.trim();
    if (headerKey && headerKey.length > 100)
      throw new ApiError(400, "Idempotency-Key must be at most 100 characters");
    const importKey = bodyKey ?? (headerKey || null);
    const d = db(c.env);
    const byKey = () =>
      d
        .select()
        .from(crateImports)
        .where(and(eq(crateImports.userUuid, who.uuid), eq(crateImports.importKey, importKey!)))
        .get();
    let row = importKey ? await byKey() : undefined;
    if (row && row.crateId !== crate.id) throw new ApiError(409, MSG.importKeyReused);
    const now = Date.now();
    if (!row) {
      await takeAttempt(c.env, [{ rule: "crateImportPerAccount", key: who.uuid }], (wait) =>
        MSG.tooManyImports(wait),
      );
      const importId = crypto.randomUUID();
      // One statement per key: of two retries racing, one row is written, both answer it.
      await runBatch(c.env, [
        sql`insert into crate_imports (import_id, import_key, user_uuid, crate_id, tracks, total, created_at, updated_at)
          values (${importId}, ${importKey ?? importId}, ${who.uuid}, ${crate.id}, ${JSON.stringify(tracks)}, ${tracks.length}, ${now}, ${now})
          on conflict (user_uuid, import_key) do nothing`,
        sql`update crates set import_status = 'IN_PROGRESS', updated_at = ${now}
          where id = ${crate.id} and exists (select 1 from crate_imports where import_id = ${importId})`,
      ]);
      row = importKey
        ? await byKey()
        : await d.select().from(crateImports).where(eq(crateImports.importId, importId)).get();
      if (row?.importId === importId) await c.env.IMPORTS.send({ importId });
    } else if (row.status === "IN_PROGRESS") {
      // A retry of an import still running, or whose request died before it was sent: send
      // it (again). The consumer resumes from the cursor and a second run moves nothing twice.
      await c.env.IMPORTS.send({ importId: row.importId });
    }
    return c.json(
      { import: importDto(row!), crate: crateDto(await reloadCrate(c.env, crate.id)) },
      202,
    );
  },
);

/** GET /api/v1/playlists/{crateUuid}/imports/{importId}: the import's progress (the crate owner only). */
trackImportRoutes.get(
  "/api/v1/playlists/:crateUuid/imports/:importId",
  requireUser,
  valid("param", z.object({ crateUuid: fields.uuid, importId: fields.uuid })),
  async (c) => {
    const { crateUuid, importId } = c.req.valid("param");
    const crate = await ownedCrate(c.env, crateUuid, caller(c));
    const row = await db(c.env)
      .select()
      .from(crateImports)
      .where(and(eq(crateImports.importId, importId), eq(crateImports.crateId, crate.id)))
      .get();
    if (!row) throw notFound(MSG.importNotFound);
    return c.json(importDto(row));
  },
);

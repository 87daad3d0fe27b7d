import { and, eq, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { db } from "../db/client";
import { crateImports, crates, type CrateImportStatus } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { appendSongs, runBatch } from "../crates/crate-repo";
import {
  importSongSchema,
  importTrack,
  type ImportSong,
} from "../playlist-service/catalogue-import";

/**
 * Playlist import in the background (issue 18): POST /api/v1/playlists/{crate}/tracks
 * writes a crate_imports row and sends its id here; this consumer imports the tracks from
 * the row's cursor, PARALLEL at a time. Each chunk commits in one D1 batch: its crate
 * songs (uuids derived from import and index, `insert or ignore`) and the advanced cursor
 * with its results. So a consumer that dies mid-import and is redelivered redoes at most
 * the chunk it was in, and appends nothing twice. An import whose consumer never comes
 * back is failed by the cron (`failStuckImports`), so no crate stays "in progress".
 */
export const crateImportMessage = z.object({ importId: z.uuid() });
export type CrateImportMessage = z.infer<typeof crateImportMessage>;

/** Tracks imported at once: quicker than one by one, gentle on D1 and the providers. */
export const PARALLEL = 8;
/** An IN_PROGRESS import untouched this long is dead: every chunk touches it. */
export const STUCK_AFTER_MS = 15 * 60_000;

export type TrackResult =
  | {
      index: number;
      status: "IMPORTED";
      created: boolean;
      verified: boolean;
      crateSongUuid: string;
      /** The song's public id and names: enough for a progress list, small enough for the row. */
      songId: string;
      trackName: string;
      artistName: string;
    }
  | {
      index: number;
      status: "FAILED";
      statusCode: number;
      message: string;
      trackName: string | null;
      artistName: string | null;
    };

/** A uuid (v8 layout) from the import and the track's index: the same on every redelivery. */
export async function trackUuid(importId: string, index: number): Promise<string> {
  const h = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`crate-import|${importId}|${index}`),
    ),
  ).slice(0, 16);
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = [...h].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const setCrateStatus = (crateId: number, status: CrateImportStatus) =>
  sql`update crates set import_status = ${status}, updated_at = ${Date.now()} where id = ${crateId}`;

/** Ends an import (and its crate's status) unless it ended already. */
function finish(
  importRowId: number,
  crateId: number,
  status: CrateImportStatus,
  detail: string | null,
) {
  return [
    sql`update crate_imports set status = ${status}, detail = ${detail}, updated_at = ${Date.now()}
      where id = ${importRowId} and status = 'IN_PROGRESS'`,
    setCrateStatus(crateId, status),
  ];
}

async function importOne(
  env: Env,
  importId: string,
  index: number,
  t: ImportSong,
  who: Caller,
): Promise<{ result: TrackResult; rowId?: number }> {
  try {
    const { song, created, verified } = await importTrack(env, t, who);
    return {
      rowId: song.id,
      result: {
        index,
        status: "IMPORTED",
        created,
        verified,
        crateSongUuid: await trackUuid(importId, index),
        songId: song.songId,
        trackName: song.trackName,
        artistName: song.artistName,
      },
    };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const result: TrackResult = {
      index,
      status: "FAILED",
      statusCode: err.status,
      message: err.message,
      trackName: t.trackName ?? null,
      artistName: t.artistName ?? null,
    };
    return { result };
  }
}

/** Runs (or resumes) one import to its end. Throws only for trouble worth a retry. */
export async function runImport(env: Env, importId: string): Promise<void> {
  const d = db(env);
  const row = await d.select().from(crateImports).where(eq(crateImports.importId, importId)).get();
  if (!row || row.status !== "IN_PROGRESS") return;
  const crate = await d
    .select({ id: crates.id })
    .from(crates)
    .where(eq(crates.id, row.crateId))
    .get();
  if (!crate) {
    await runBatch(env, finish(row.id, row.crateId, "FAILED", "The crate was deleted."));
    return;
  }
  // The importer as the import's caller: their uploads and unverified songs are theirs.
  const who: Caller = { uuid: row.userUuid, type: "user", roles: [] };
  const tracks = z.array(importSongSchema).parse(row.tracks);
  let results = row.results as TrackResult[];
  for (let start = row.done; start < tracks.length; start += PARALLEL) {
    const chunk = await Promise.all(
      tracks
        .slice(start, start + PARALLEL)
        .map((t, i) => importOne(env, importId, start + i, t, who)),
    );
    const imported = chunk.flatMap(({ result: r, rowId }) =>
      r.status === "IMPORTED" && rowId !== undefined
        ? [{ crateSongUuid: r.crateSongUuid, songId: rowId }]
        : [],
    );
    results = [...results, ...chunk.map((c) => c.result)];
    // The cursor moves only from where this run read it: a second consumer racing on the
    // same import (a redelivery while the first still runs) cannot move it twice.
    const advance = sql`update crate_imports set done = ${start + chunk.length}, results = ${JSON.stringify(results)},
      updated_at = ${Date.now()} where id = ${row.id} and done = ${start} and status = 'IN_PROGRESS'`;
    if (imported.length)
      await appendSongs(env, row.crateId, imported, [advance], { idempotent: true });
    else await runBatch(env, [advance]);
  }
  const anyImported = results.some((r) => r.status === "IMPORTED");
  await runBatch(
    env,
    finish(
      row.id,
      row.crateId,
      anyImported ? "COMPLETE" : "FAILED",
      anyImported ? null : "No track could be imported.",
    ),
  );
}

/** The queue consumer: each message runs its import; a failure is retried (it resumes). */
export async function consumeCrateImports(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = crateImportMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error("crate import: dropping a malformed message", message.body);
      message.ack();
      continue;
    }
    try {
      await runImport(env, parsed.data.importId);
      message.ack();
    } catch (err) {
      console.error(`crate import ${parsed.data.importId} failed; retrying`, err);
      message.retry();
    }
  }
}

/**
 * The cron's sweep: imports untouched for STUCK_AFTER_MS end FAILED with their crates, and
 * so do crates left IN_PROGRESS by the old in-request import (no import row behind them).
 */
export async function failStuckImports(env: Env, now = Date.now()): Promise<number> {
  const before = now - STUCK_AFTER_MS;
  const stuck = await db(env)
    .select({ id: crateImports.id, crateId: crateImports.crateId })
    .from(crateImports)
    .where(and(eq(crateImports.status, "IN_PROGRESS"), lt(crateImports.updatedAt, before)))
    .limit(100)
    .all();
  const stmts = stuck.flatMap((s) =>
    finish(s.id, s.crateId, "FAILED", "The import stopped answering."),
  );
  stmts.push(sql`update crates set import_status = 'FAILED', updated_at = ${now}
    where import_status = 'IN_PROGRESS' and updated_at < ${before}
      and not exists (select 1 from crate_imports i where i.crate_id = crates.id and i.status = 'IN_PROGRESS')`);
  await runBatch(env, stmts);
  return stuck.length;
}

import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { crates, type SongRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import type { SongDto } from "../../shared/songs";
import { toSongDto } from "../songs/dto";
import { importSongSchema, importTrack } from "./catalogue-import";
import { appendSongs, reloadCrate } from "../crates/crate-repo";
import { crateDto, ownedCrate } from "./crate-repo";

/** Importing songs from providers into the catalogue, one at a time or into a crate. */
export const trackImportRoutes = new Hono<AppEnv>();

/** POST /api/v1/track-import `{ song }`: `{ song: SongDto, created }` (201 when a row was made). */
trackImportRoutes.post(
  "/api/v1/track-import",
  requireUser,
  valid("json", z.object({ song: importSongSchema })),
  async (c) => {
    const { song, created } = await importTrack(c.env, c.req.valid("json").song, caller(c));
    return c.json({ song: toSongDto(song), created }, created ? 201 : 200);
  },
);

type TrackResult =
  | {
      index: number;
      status: "IMPORTED";
      created: boolean;
      crateSongUuid: string;
      song: SongDto;
      row: SongRow;
    }
  | {
      index: number;
      status: "FAILED";
      statusCode: number;
      message: string;
      trackName: string;
      artistName: string;
    };

const tracksBody = z.object({
  tracks: z
    .array(importSongSchema, { error: "tracks must be a list of songs" })
    .min(1, "tracks should not be empty")
    .max(100, "tracks must have at most 100 items"),
});

/** Imports run this many at a time: quicker than one by one, gentle on D1. */
const PARALLEL = 8;

/**
 * POST /api/v1/playlists/{crateUuid}/tracks `{ tracks }` (owner only): imports each song
 * and appends the imported ones to the crate in order. importStatus is IN_PROGRESS while
 * it runs (clients poll the crate), then COMPLETE, or FAILED when no song could be
 * imported. A song that cannot be imported is reported with its message, not fatal.
 */
trackImportRoutes.post(
  "/api/v1/playlists/:crateUuid/tracks",
  requireUser,
  valid("param", z.object({ crateUuid: fields.uuid })),
  valid("json", tracksBody),
  async (c) => {
    const who = caller(c);
    const crate = await ownedCrate(c.env, c.req.valid("param").crateUuid, who);
    const { tracks } = c.req.valid("json");
    const d = db(c.env);
    const setStatus = (importStatus: "IN_PROGRESS" | "COMPLETE" | "FAILED") =>
      d.update(crates).set({ importStatus, updatedAt: Date.now() }).where(eq(crates.id, crate.id));
    await setStatus("IN_PROGRESS");
    const results: TrackResult[] = [];
    try {
      for (let start = 0; start < tracks.length; start += PARALLEL) {
        const chunk = tracks.slice(start, start + PARALLEL);
        await Promise.all(
          chunk.map(async (t, i) => {
            const index = start + i;
            try {
              const { song, created } = await importTrack(c.env, t, who);
              results[index] = {
                index,
                status: "IMPORTED",
                created,
                crateSongUuid: crypto.randomUUID(),
                song: toSongDto(song),
                row: song,
              };
            } catch (err) {
              if (!(err instanceof ApiError)) throw err;
              results[index] = {
                index,
                status: "FAILED",
                statusCode: err.status,
                message: err.message,
                trackName: t.trackName,
                artistName: t.artistName,
              };
            }
          }),
        );
      }
      const imported = results.filter((r) => r.status === "IMPORTED");
      const done = setStatus(imported.length ? "COMPLETE" : "FAILED");
      if (imported.length)
        await appendSongs(
          c.env,
          crate.id,
          imported.map((r) => ({ crateSongUuid: r.crateSongUuid, songId: r.row.id })),
          [done],
        );
      else await done;
    } catch (err) {
      await setStatus("FAILED");
      throw err;
    }
    const imported = results.filter((r) => r.status === "IMPORTED").length;
    return c.json({
      crate: crateDto(await reloadCrate(c.env, crate.id)),
      imported,
      failed: results.length - imported,
      results: results.map((r) => {
        if (r.status === "FAILED") return r;
        const { row: _row, ...rest } = r;
        return rest;
      }),
    });
  },
);

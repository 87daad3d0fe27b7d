import { and, eq } from "drizzle-orm";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { SPECIAL_CRATES } from "../../shared/songs";
import { db } from "../db/client";
import { songs } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAnyToken, requireUser } from "../lib/auth";
import { notFound } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { fields, parseOr400, valid } from "../lib/validate";
import { SONG_MSG } from "../songs/messages";
import {
  addSong,
  listCrateSongs,
  moveSong,
  reloadCrate,
  removeSongs,
  setCurrentPosition,
  shuffleSongs,
  songVisibleTo,
  visibleBefore,
  type CountedCrate,
} from "../crates/crate-repo";
import { crateDto, ownedCrate, readableCrate } from "./crate-repo";

/**
 * The songs of a crate: list, add, remove, move, shuffle and the current position. The
 * same routes serve a crate by uuid (`/crate/:crateId`) and the caller's queue and likes
 * (`/crate/queue`, `/crate/likes`); only how the crate is found differs.
 */

/** Finds the crate a request is about: for reading (`write` false) or for changing it. */
export type ResolveCrate = (c: Context<AppEnv>, write: boolean) => Promise<CountedCrate>;

const addBody = z.object({
  songId: fields.uuid,
  append: z.boolean({ error: "append must be a boolean" }).default(true),
  /** Only if the crate does not hold the song yet ("Add to queue" says "already queued"). */
  once: z.boolean({ error: "once must be a boolean" }).default(false),
});
const removeBody = z.object({
  crateSongUuids: z
    .array(fields.uuid, { error: "crateSongUuids must be a list of crate song uuids" })
    .min(1, "crateSongUuids should not be empty")
    .max(500, "crateSongUuids must have at most 500 items"),
});
// Any integer is accepted and clamped to the crate (seed: reorder with newPosition).
const moveBody = z.object({
  newPosition: z
    .number({ error: "newPosition must be a number" })
    .int("newPosition must be an integer"),
});
const currentBody = z.object({
  currentPosition: z
    .number({ error: "currentPosition must be a number" })
    .int("currentPosition must be an integer")
    .min(0, "currentPosition must not be negative"),
});
const pageQuery = limitOffset(100, 20);

/** The likes crate holds a song once; the queue and ordinary crates may repeat one. */
const likesType = SPECIAL_CRATES.likes.crateType;

export function crateSongRoutesFor(
  base: string,
  resolve: ResolveCrate,
  readGuard: MiddlewareHandler<AppEnv>,
) {
  const r = new Hono<AppEnv>();

  /** GET .../songs?limit&offset: the songs in order, `{ data: CrateSongDto[], total }`. */
  r.get(`${base}/songs`, readGuard, valid("query", pageQuery), async (c) => {
    const { limit, offset } = c.req.valid("query");
    const crate = await resolve(c, false);
    return c.json(await listCrateSongs(c.env, crate.id, c.get("caller")?.uuid, limit, offset));
  });

  /**
   * POST .../songs `{ songId, append = true, once = false }`: 201 the new CrateSongDto; 200
   * the one the crate holds for a song already liked, or already there with `once`.
   */
  r.post(`${base}/songs`, requireUser, valid("json", addBody), async (c) => {
    const { songId, append, once } = c.req.valid("json");
    const crate = await resolve(c, true);
    const song = await db(c.env)
      .select()
      .from(songs)
      .where(and(eq(songs.songId, songId), songVisibleTo(caller(c).uuid)))
      .get();
    if (!song) throw notFound(SONG_MSG.songNotFound);
    const res = await addSong(c.env, crate, song, append, once || crate.crateType === likesType);
    return c.json(res.song, res.added ? 201 : 200);
  });

  /** DELETE .../songs `{ crateSongUuids }`: `{ removed }` (uuids not in the crate are ignored). */
  r.delete(`${base}/songs`, requireUser, valid("json", removeBody), async (c) => {
    const crate = await resolve(c, true);
    return c.json({
      removed: await removeSongs(c.env, crate.id, c.req.valid("json").crateSongUuids),
    });
  });

  /** PUT .../songs/{crateSongUuid}/position `{ newPosition }`: `{ data }`, the page (of `limit`) the song is now on. */
  r.put(
    `${base}/songs/:crateSongUuid/position`,
    requireUser,
    valid("param", z.object({ crateSongUuid: fields.uuid })),
    valid("query", pageQuery.pick({ limit: true })),
    valid("json", moveBody),
    async (c) => {
      const crate = await resolve(c, true);
      const { limit } = c.req.valid("query");
      const who = caller(c).uuid;
      const position = await moveSong(
        c.env,
        crate.id,
        c.req.valid("param").crateSongUuid,
        c.req.valid("json").newPosition,
      );
      const before = await visibleBefore(c.env, crate.id, who, position);
      const page = await listCrateSongs(
        c.env,
        crate.id,
        who,
        limit,
        Math.floor(before / limit) * limit,
      );
      return c.json({ data: page.data });
    },
  );

  /** POST .../shuffle: a uniformly random order; answers the CrateDto. */
  r.post(`${base}/shuffle`, requireUser, async (c) => {
    const crate = await resolve(c, true);
    await shuffleSongs(c.env, crate.id);
    return c.json(crateDto(await reloadCrate(c.env, crate.id)));
  });

  /** PUT .../current-position `{ currentPosition }` (0..n-1, 0 when empty): the CrateDto. */
  r.put(`${base}/current-position`, requireUser, valid("json", currentBody), async (c) => {
    const crate = await resolve(c, true);
    await setCurrentPosition(c.env, crate.id, c.req.valid("json").currentPosition);
    return c.json(crateDto(await reloadCrate(c.env, crate.id)));
  });

  return r;
}

/** A crate by uuid: anyone with a token reads a public one; only its owner changes it. */
const byUuid: ResolveCrate = async (c, write) => {
  const { crateId } = parseOr400(z.object({ crateId: fields.uuid }), c.req.param());
  return write
    ? ownedCrate(c.env, crateId, caller(c))
    : readableCrate(c.env, crateId, c.get("caller"));
};

export const crateSongRoutes = crateSongRoutesFor("/crate/:crateId", byUuid, requireAnyToken);

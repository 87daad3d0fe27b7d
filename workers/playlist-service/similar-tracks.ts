import { and, eq, inArray } from "drizzle-orm";
import { Hono } from "hono";
import { analysisAdapter } from "../adapters/analysis";
import { songVisibleTo } from "../crates/crate-repo";
import { db } from "../db/client";
import { crates, songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, notFound } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import { valid } from "../lib/validate";
import { analysableId, requestAnalysis } from "../similar/analysis-jobs";
import { similarAnswer } from "../similar/answer";
import { SONG_MSG } from "../songs/messages";
import {
  enqueueBody,
  similarQuery,
  type EnqueueAnswer,
  type SimilarAnswer,
} from "../../shared/similar";
import { SPECIAL_CRATES } from "../../shared/songs";
import { MSG } from "./messages";

/**
 * Similar tracks (seed 001: "a similar-tracks graph query and an enqueue mutation for
 * analysis"; endpoints.txt names no path for them, since the client called the analysis
 * API itself). Ours, documented in docs/SONGS-API.md:
 * - GET /similar-tracks?songIds=a,b&limit=8&excludeQueue=true: up to 8 songs like the seeds
 *   (1 to 8 song uuids), `{ songs, analysis: { status, code } }` (shared/similar.ts).
 * - POST /similar-tracks/enqueue `{ songId }`: queue the seed's music analysis; 202.
 * Answers are cached for a short time per (seeds, viewer, limit, excludeQueue).
 */
export const similarTrackRoutes = new Hono<AppEnv>();

/** How long an answer is reused: a DJ's panel refreshes each song; plays change slowly. */
export const SIMILAR_CACHE_SECONDS = 30;
const CACHE_ORIGIN = "https://similar-tracks.internal";

async function visibleSongs(env: Env, songIds: string[], viewerUuid: string) {
  return db(env)
    .select()
    .from(songs)
    .where(and(inArray(songs.songId, songIds), songVisibleTo(viewerUuid)))
    .all();
}

/**
 * GET /similar-tracks (an account: guests cannot DJ, and a budget keyed by a guest token would
 * be free to dodge). Answers from the cache first; a miss spends the caller's query budget.
 */
similarTrackRoutes.get("/similar-tracks", requireUser, valid("query", similarQuery), async (c) => {
  const who = caller(c);
  const q = c.req.valid("query");
  const key = new Request(
    `${CACHE_ORIGIN}/?seeds=${q.songIds.join(",")}&viewer=${who.uuid}&limit=${q.limit}&xq=${q.excludeQueue}`,
  );
  const cache = await caches.open("similar-tracks");
  const hit = await cache.match(key);
  if (hit) return c.json((await hit.json()) as SimilarAnswer);

  await takeAttempt(c.env, [{ rule: "similarQueryPerAccount", key: who.uuid }], (wait) =>
    MSG.similarBudget(wait),
  );
  const seeds = await visibleSongs(c.env, q.songIds, who.uuid);
  if (!seeds.length) throw notFound(SONG_MSG.songNotFound);
  const queue = q.excludeQueue
    ? await db(c.env)
        .select({ id: crates.id })
        .from(crates)
        .where(
          and(eq(crates.userUuid, who.uuid), eq(crates.crateType, SPECIAL_CRATES.queue.crateType)),
        )
        .get()
    : undefined;
  const answer = await similarAnswer(c.env, seeds, who.uuid, q.limit, queue?.id ?? null);
  await cache.put(
    key,
    Response.json(answer, {
      headers: { "Cache-Control": `max-age=${SIMILAR_CACHE_SECONDS}` },
    }),
  );
  return c.json(answer);
});

/** POST /similar-tracks/enqueue `{ songId }` (an account): 202 `{ songId, status, enqueued }`. */
similarTrackRoutes.post(
  "/similar-tracks/enqueue",
  requireUser,
  valid("json", enqueueBody),
  async (c) => {
    const who = caller(c);
    const { songId } = c.req.valid("json");
    const [song] = await visibleSongs(c.env, [songId], who.uuid);
    if (!song) throw notFound(SONG_MSG.songNotFound);
    if (!analysisAdapter(c.env)) throw new ApiError(503, MSG.analysisOff);
    if (!analysableId(song)) throw new ApiError(422, MSG.analysisUnsupported);
    const r = await requestAnalysis(c.env, who.uuid, song, "throw");
    return c.json({ songId: song.songId, ...r } satisfies EnqueueAnswer, 202);
  },
);

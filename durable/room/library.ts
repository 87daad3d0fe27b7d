/**
 * What the Room object reads from and writes to D1: a caller's DJ facts, their queue crate,
 * the played-song record, and the likes crate. The crate operations themselves are the crates
 * domain's (workers/crates/crate-repo.ts, shared with the playlist-service); this module only
 * calls them.
 *
 * Invariants:
 * - The queue is read at the moment a song starts, never cached: a DJ's edits to their
 *   queue count until the last moment.
 * - Recording a play is idempotent (recent_song_plays.play_id is unique), so the outbox can
 *   retry it after a failure or an eviction without a second row.
 * - Nothing here touches the room's SQLite; callers re-check their state after each await.
 */
import { and, asc, count, eq } from "drizzle-orm";
import { SPECIAL_CRATES, type CrateSongDto } from "../../shared/songs";
import { db } from "../../workers/db/client";
import { crateSongs, crates, recentSongPlays, songs, users } from "../../workers/db/schema";
import type { Env } from "../../workers/env";
import { liveLevelSql } from "../../workers/payment-service/level-rule";
import { hasRootSecret, purposeKey } from "../../workers/lib/purpose-keys";
import { playGrantQuery } from "../../workers/songs/hls";
import {
  addSong,
  moveSong,
  setCurrentPosition,
  specialCrate,
} from "../../workers/crates/crate-repo";
import { toCrateSongDto } from "../../workers/songs/dto";
import { chatProfileOf, type ChatProfile } from "./profile";
import { STAGE_MSG } from "./messages";
import type { PlayRow } from "./storage";

/**
 * Read at connect and kept with the connection: tokens carry neither fact. `pro` is the level
 * the subscriptions grant now (a lapsed one grants none even if no event said so).
 */
export async function djFacts(
  env: Env,
  uuid: string,
): Promise<{ emailVerified: boolean; pro: boolean; profile: ChatProfile | null }> {
  const row = await db(env)
    .select({
      v: users.emailVerified,
      s: liveLevelSql(users.uuid),
      nickname: users.nickname,
      avatarId: users.avatarId,
      color: users.color,
      badges: users.badges,
    })
    .from(users)
    .where(eq(users.uuid, uuid))
    .get();
  const profile = row ? chatProfileOf(row) : null;
  return { emailVerified: !!row?.v, pro: row?.s != null, profile };
}

const queueOf = (env: Env, userUuid: string) =>
  db(env)
    .select()
    .from(crates)
    .where(and(eq(crates.userUuid, userUuid), eq(crates.crateType, SPECIAL_CRATES.queue.crateType)))
    .get();

/** How many songs the user's queue holds (0 if they have no queue yet). */
export async function queueLength(env: Env, userUuid: string): Promise<number> {
  const crate = await queueOf(env, userUuid);
  if (!crate) return 0;
  const row = await db(env)
    .select({ n: count() })
    .from(crateSongs)
    .where(eq(crateSongs.crateId, crate.id))
    .get();
  return row?.n ?? 0;
}

/**
 * Taking a seat or a place in line needs a song to play: the refusal (`empty` when the queue
 * holds none, the "try again" text when D1 fails), or null to go on.
 */
export async function emptyQueueRefusal(
  env: Env,
  userUuid: string,
  empty: string,
): Promise<string | null> {
  try {
    return (await queueLength(env, userUuid)) === 0 ? empty : null;
  } catch (e) {
    console.error("room: queue length failed", e);
    return STAGE_MSG.queueUnavailable;
  }
}

export interface PickedSong {
  song: CrateSongDto;
  crateId: number;
}

/**
 * The song a DJ plays now: from the queue's current position onwards (wrapping round), the
 * first that is not longer than `maxSeconds` and was not played here recently. Null when
 * the queue is empty or nothing in it may play.
 */
export async function pickSong(
  env: Env,
  djUuid: string,
  maxSeconds: number,
  playedRecently: Set<string>,
): Promise<PickedSong | null> {
  const crate = await queueOf(env, djUuid);
  if (!crate) return null;
  const rows = await db(env)
    .select({ song: songs, cs: crateSongs })
    .from(crateSongs)
    .innerJoin(songs, eq(songs.id, crateSongs.songId))
    .where(eq(crateSongs.crateId, crate.id))
    .orderBy(asc(crateSongs.position), asc(crateSongs.id))
    .all();
  const start = rows.findIndex((r) => r.cs.position >= crate.currentPosition);
  const ordered = start <= 0 ? rows : [...rows.slice(start), ...rows.slice(0, start)];
  const hit = ordered.find(
    (r) => r.song.duration <= maxSeconds && !playedRecently.has(r.song.songId),
  );
  if (!hit) return null;
  return {
    song: await withPlayGrant(env, toCrateSongDto(hit.song, hit.cs), hit.song, djUuid),
    crateId: crate.id,
  };
}

/** Slack after a song's end for a room's listeners to finish loading it. */
const GRANT_SLACK_S = 10 * 60;

/**
 * A DJ's private upload plays to the room (issue 18): its playlist URL carries a play grant
 * (workers/songs/hls.ts) valid until the song's end plus slack. Public songs need none, and
 * without ROOT_SECRET there is no HLS at all.
 */
async function withPlayGrant(
  env: Env,
  dto: CrateSongDto,
  row: typeof songs.$inferSelect,
  djUuid: string,
): Promise<CrateSongDto> {
  const path = dto.streamUrls.uploadService;
  if (row.isPublic || !row.ownerUuid || !path || !hasRootSecret(env)) return dto;
  const exp = Math.floor(Date.now() / 1000) + Math.max(1, row.duration) + GRANT_SLACK_S;
  const query = await playGrantQuery(
    await purposeKey(env, "hls"),
    row.songId,
    `play:${djUuid}`,
    exp,
  );
  return { ...dto, streamUrls: { ...dto.streamUrls, uploadService: `${path}?${query}` } };
}

/**
 * Writes one stopped play to D1: the recent-plays row, and for a play that ran its course
 * (or was skipped) the rotation: the song goes to the end of the DJ's queue and the song
 * that followed it becomes current.
 */
export async function recordPlay(env: Env, play: PlayRow, roomSlug: string): Promise<void> {
  await db(env)
    .insert(recentSongPlays)
    .values({
      playId: play.play_id,
      roomSlug,
      song: JSON.parse(play.song),
      voteCounts: JSON.parse(play.vote_counts),
      djUuid: play.dj_uuid,
      playedAt: play.played_at,
    })
    .onConflictDoNothing();
  if (!play.rotate) return;
  const row = await db(env)
    .select({ p: crateSongs.position })
    .from(crateSongs)
    .where(
      and(
        eq(crateSongs.crateId, play.crate_id),
        eq(crateSongs.crateSongUuid, play.crate_song_uuid),
      ),
    )
    .get();
  if (!row) return; // the DJ removed the song meanwhile: nothing to rotate
  const total =
    (
      await db(env)
        .select({ n: count() })
        .from(crateSongs)
        .where(eq(crateSongs.crateId, play.crate_id))
        .get()
    )?.n ?? 0;
  await moveSong(env, play.crate_id, play.crate_song_uuid, Math.max(0, total - 1));
  // The move made the played song current (the position follows its song); the one that
  // followed it now sits where it was.
  await setCurrentPosition(env, play.crate_id, Math.min(row.p, Math.max(0, total - 1)));
}

/** Adds a starred song to the voter's likes crate, once however often they star it. */
export async function starToLikes(env: Env, userUuid: string, songId: string): Promise<void> {
  const song = await db(env).select().from(songs).where(eq(songs.songId, songId)).get();
  if (!song) return; // deleted since it started playing
  const likes = await specialCrate(env, userUuid, "likes");
  await addSong(env, likes, song, true, true);
}

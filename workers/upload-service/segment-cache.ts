import type { Env } from "../env";
import { hasRootSecret, purposeKey } from "../lib/purpose-keys";
import { SEGMENT_CONTAINERS, type SegmentContainer } from "../songs/hls";
import { fileEpoch, type Upload } from "./common";

/**
 * The segment cache (issue 18, docs/DECISIONS.md "Segment cache"): an encrypted HLS segment
 * is the same bytes for every listener (the key is per song, the IV is the segment number),
 * so after the URL's signature is checked it is served from the Workers Cache API and the
 * D1 read, the R2 range read and the AES run once per segment per data center instead of
 * once per listener.
 *
 * The key names the song, the segment (and its container) and the key epoch: the file version the playlist
 * was built from (song_files.updated_at, signed into the segment URL) and a fingerprint of
 * the HLS signing key (so rotating ROOT_SECRET, which changes every song key, misses too).
 * Never the listener's token or the URL's signature: those differ per playlist and would
 * make every listener a miss. Privacy does not depend on the cache: only a playlist
 * carries signed segment URLs, and the playlist route decides who gets one.
 */

/**
 * How long a data center keeps a segment. Long enough to cover a song being played by a
 * room (every listener asks for each segment within seconds of each other), and the bound
 * on how long another data center can keep serving a song after a takedown (this data
 * center's copies are deleted at once, see purgeSegments).
 */
export const SEGMENT_CACHE_TTL_S = 10 * 60;

/** The response header that says whether a segment came from the cache ("hit") or was made ("miss"). */
export const CACHE_HEADER = "x-segment-cache";

/** `HLS_SEGMENT_CACHE=off` turns the cache off (the bench's baseline; an operator's escape hatch). */
export const segmentCacheOn = (env: Pick<Env, "HLS_SEGMENT_CACHE">) =>
  env.HLS_SEGMENT_CACHE !== "off" && typeof caches !== "undefined";

/** A named cache of its own (same per-data-center store as caches.default), as search-budget.ts does. */
const segmentStore = () => caches.open("hls-segments");

const fingerprints = new WeakMap<CryptoKey, Promise<string>>();

/** 8 bytes of HMAC(HLS key, "hls-cache-epoch"), hex: which root secret made the cached bytes. */
function fingerprint(secret: CryptoKey): Promise<string> {
  let fp = fingerprints.get(secret);
  if (!fp) {
    fp = crypto.subtle
      .sign("HMAC", secret, new TextEncoder().encode("hls-cache-epoch"))
      .then((mac) =>
        [...new Uint8Array(mac, 0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(""),
      );
    fingerprints.set(secret, fp);
  }
  return fp;
}

/**
 * The cache key: a URL on the app's own host (the Cache API stores per zone), under a path
 * no route answers, so nothing a client sends can read or write it directly.
 */
export async function segmentCacheKey(
  env: Pick<Env, "PUBLIC_HOST">,
  requestUrl: string,
  secret: CryptoKey,
  songId: string,
  n: number,
  epoch: number,
  container: SegmentContainer = "mp3",
): Promise<string> {
  const origin = env.PUBLIC_HOST ? new URL(env.PUBLIC_HOST).origin : new URL(requestUrl).origin;
  return `${origin}/__segment-cache/${songId}/${n}.${container}/${epoch}/${await fingerprint(secret)}`;
}

/** The cached ciphertext, or undefined. A broken cache is a miss, never an error. */
export async function cachedSegment(key: string): Promise<ArrayBuffer | undefined> {
  try {
    const hit = await (await segmentStore()).match(key);
    return hit ? await hit.arrayBuffer() : undefined;
  } catch (err) {
    console.error("segment cache read failed", err);
    return undefined;
  }
}

/** Stores a segment's ciphertext for SEGMENT_CACHE_TTL_S, tagged with its song (purge by tag). */
export async function storeSegment(
  key: string,
  songId: string,
  body: ArrayBuffer,
  contentType: string,
): Promise<void> {
  try {
    await (
      await segmentStore()
    ).put(
      key,
      new Response(body, {
        headers: {
          "Content-Type": contentType,
          // The Cache API stores only what it may share: "private" here would store nothing.
          "Cache-Control": `public, max-age=${SEGMENT_CACHE_TTL_S}`,
          "Cache-Tag": `song-${songId}`,
        },
      }),
    );
  } catch (err) {
    console.error("segment cache write failed", err);
  }
}

/**
 * Deletes a song's cached segments in this data center (a takedown or a delete must stop
 * playback at once). Other data centers drop theirs within SEGMENT_CACHE_TTL_S, or at once
 * through a purge by the `song-<id>` Cache-Tag.
 */
export async function purgeSegments(
  env: Pick<Env, "PUBLIC_HOST" | "HLS_SEGMENT_CACHE">,
  requestUrl: string,
  secret: CryptoKey,
  songId: string,
  epoch: number,
  count: number,
): Promise<void> {
  if (!segmentCacheOn(env)) return;
  const keys = await Promise.all(
    SEGMENT_CONTAINERS.flatMap((container) =>
      Array.from({ length: count }, (_, n) =>
        segmentCacheKey(env, requestUrl, secret, songId, n, epoch, container),
      ),
    ),
  );
  const store = await segmentStore();
  await Promise.all(
    keys.map((k) =>
      store.delete(k).catch((err: unknown) => {
        console.error("segment cache delete failed", err);
        return false;
      }),
    ),
  );
}

/** After a takedown or a delete: this data center forgets every cached segment of the song's current file. */
export async function forgetSongSegments(env: Env, requestUrl: string, up: Upload): Promise<void> {
  const count = up.file?.segments?.length ?? 0;
  if (!up.file || !count || !hasRootSecret(env)) return;
  const secret = await purposeKey(env, "hls");
  await purgeSegments(env, requestUrl, secret, up.song.songId, fileEpoch(up.file), count);
}

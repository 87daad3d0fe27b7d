import { and, eq, inArray, or } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import {
  adapterFor,
  ADAPTER_KEYS,
  outside,
  providerForHost,
  requireEnabled,
  type ProviderSong,
} from "../adapters/music";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAnyToken, type Caller } from "../lib/auth";
import { ApiError, badRequest, forbidden, notFound } from "../lib/errors";
import { valid } from "../lib/validate";
import { hlsPlaylistPath } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";
import { MSG } from "./messages";

/**
 * Song data from providers: shared links (chat, migration), lookups by provider id, and the
 * stream and preview URLs the player uses. Every route takes any valid token (guests
 * listen too); none of them writes to the catalogue (importing is POST /api/v1/track-import).
 */
export const songDataRoutes = new Hono<AppEnv>();

const anyToken = ["user", "bot", "guest", "ghost"] as const;
type ResolvedSong = ProviderSong & { songId: string | null };

/**
 * The local catalogue song with this ISRC that the caller may see (VERIFIED, and public or
 * their own), so a client can play or add it without importing again. ISRCs are compared
 * in both cases an upload may have stored, which keeps the lookup on the isrc index.
 */
async function localSongId(env: Env, who: Caller, isrc: string | null): Promise<string | null> {
  if (!isrc) return null;
  const row = await db(env)
    .select({ songId: songs.songId })
    .from(songs)
    .where(
      and(
        inArray(songs.isrc, [...new Set([isrc, isrc.toUpperCase(), isrc.toLowerCase()])]),
        eq(songs.status, "VERIFIED"),
        or(eq(songs.isPublic, true), eq(songs.ownerUuid, who.uuid)),
      ),
    )
    .orderBy(songs.id)
    .get();
  return row?.songId ?? null;
}

/**
 * Resolves a shared link (seed 001, Validation rules): only hosts containing one of the
 * spec's provider names, looked up through that provider's adapter, and only a song with
 * an ISRC is an answer (the ISRC is what ties it to every other provider).
 */
export async function resolveLink(env: Env, who: Caller, raw: string): Promise<ResolvedSong> {
  let url: URL;
  try {
    // People paste links without a scheme ("open.spotify.com/track/..."): assume https.
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw badRequest(MSG.badLink);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw badRequest(MSG.badLink);
  const found = providerForHost(url.hostname);
  if (!found) throw badRequest(SONG_MSG.unsupportedLink);
  if (!found.adapter) throw new ApiError(503, MSG.noAdapter(found.name));
  const adapter = requireEnabled(env, found.adapter);
  const song = await outside(adapter.name, () => adapter.fromLink(env, url));
  if (!song) throw notFound(MSG.trackNotFound(adapter.name));
  if (!song.isrc) throw notFound(SONG_MSG.linkNeedsIsrc);
  return { ...song, songId: await localSongId(env, who, song.isrc) };
}

const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "country must be a 2-letter country code")
  .transform((v) => v.toUpperCase());
const linkParam = z.object({
  link: z
    .string()
    .min(1, "link should not be empty")
    .max(2048, "link must be at most 2048 characters"),
});

/** POST /song-data/migrate-links: each link resolved as GET /song-data/{link} would. */
const MIGRATE_MAX = 50;
/** Links resolved at a time: enough to be quick, few enough to stay under subrequest limits. */
const MIGRATE_CONCURRENCY = 5;

songDataRoutes.post(
  "/song-data/migrate-links",
  requireAnyToken,
  valid(
    "json",
    z.object({
      links: z
        .array(
          z
            .string()
            .min(1, "links must not hold empty strings")
            .max(2048, "links must be at most 2048 characters each"),
          { error: "links must be a list of strings" },
        )
        .min(1, "links should not be empty")
        .max(MIGRATE_MAX, `links must hold at most ${MIGRATE_MAX} entries`),
    }),
  ),
  async (c) => {
    const who = caller(c, anyToken);
    const links = c.req.valid("json").links;
    const results: (
      | { link: string; status: 200; song: ResolvedSong }
      | { link: string; status: number; message: string }
    )[] = new Array(links.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < links.length; i = next++) {
        try {
          results[i] = {
            link: links[i],
            status: 200,
            song: await resolveLink(c.env, who, links[i]),
          };
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          results[i] = { link: links[i], status: err.status, message: err.message };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MIGRATE_CONCURRENCY, links.length) }, worker));
    return c.json({ results });
  },
);

type Kind = "stream" | "preview";
const STREAM_PROVIDERS = [
  "uploadService",
  ...ADAPTER_KEYS.filter((k) => adapterFor(k)?.stream || adapterFor(k)?.preview),
] as const;

/**
 * Where to play a song from. `id` is a local songId (a uuid) or a provider's track id;
 * without `provider`, a uuid is local and a number is 7digital's (the hangout brand's
 * streaming source). Local songs stream from their HLS playlist once VERIFIED (seed 001:
 * "An HLS playlist is only available for a verified song"), for previews too (an upload
 * has no separate clip); a local song that is not an upload plays from its 7digital id.
 */
async function playUrl(
  env: Env,
  kind: Kind,
  p: { country: string; id: string },
  q: { quality: "low" | "medium" | "high"; provider?: string },
  who?: Caller,
) {
  const isUuid = z.uuid().safeParse(p.id).success;
  const provider =
    q.provider ?? (isUuid ? "uploadService" : /^\d+$/.test(p.id) ? "sevenDigital" : undefined);
  if (!provider) throw badRequest(MSG.streamIdUnknown);
  if (provider === "uploadService") {
    if (!isUuid) throw notFound(SONG_MSG.songNotFound);
    // Any token may stream by id, as GET /songs/{songId}/hls-playlist allows.
    const row = await db(env).select().from(songs).where(eq(songs.songId, p.id)).get();
    if (!row) throw notFound(SONG_MSG.songNotFound);
    // A private upload streams to its owner and admins only (the playlist route refuses
    // anyone else too); to others it does not exist.
    if (
      !row.isPublic &&
      row.ownerUuid &&
      !(who && (who.uuid === row.ownerUuid || who.roles.some((r) => ADMIN_ROLES.includes(r))))
    )
      throw notFound(SONG_MSG.songNotFound);
    if (row.status !== "VERIFIED") throw forbidden(SONG_MSG.notVerified);
    if (row.musicProviders.uploadService !== undefined)
      return { url: hlsPlaylistPath(row.songId), provider: "uploadService" };
    const seven = row.musicProviders.sevenDigital;
    if (!seven) throw notFound(MSG.noStream);
    return playUrl(
      env,
      kind,
      { country: p.country, id: seven },
      { quality: q.quality, provider: "sevenDigital" },
    );
  }
  const adapter = requireEnabled(env, adapterFor(provider)!);
  const lookup = kind === "stream" ? adapter.stream : adapter.preview;
  if (!lookup) throw notFound(MSG.noStream);
  const url = await outside(adapter.name, () =>
    lookup(env, p.id, { country: p.country, quality: q.quality }),
  );
  if (!url) throw notFound(MSG.trackNotFound(adapter.name));
  return { url, provider };
}

const playParams = z.object({
  country,
  id: z.string().min(1).max(100, "id must be at most 100 characters"),
});
const providerQuery = z
  .enum(STREAM_PROVIDERS as unknown as [string, ...string[]], {
    error: `provider must be one of: ${STREAM_PROVIDERS.join(", ")}`,
  })
  .optional();

songDataRoutes.get(
  "/song-data/stream/:country/:id",
  requireAnyToken,
  valid("param", playParams),
  valid(
    "query",
    z.object({
      quality: z
        .enum(["low", "medium", "high"], { error: "quality must be low, medium or high" })
        .default("medium"),
      provider: providerQuery,
    }),
  ),
  async (c) =>
    c.json(
      await playUrl(c.env, "stream", c.req.valid("param"), c.req.valid("query"), c.get("caller")),
    ),
);

songDataRoutes.get(
  "/song-data/preview/:country/:id",
  requireAnyToken,
  valid("param", playParams),
  valid("query", z.object({ provider: providerQuery })),
  async (c) =>
    c.json(
      await playUrl(
        c.env,
        "preview",
        c.req.valid("param"),
        { ...c.req.valid("query"), quality: "medium" },
        c.get("caller"),
      ),
    ),
);

/** GET /song-data/{provider}/{id}: one track by a provider's id (the spec's "provider routes"). */
songDataRoutes.get(
  "/song-data/:provider/:id",
  requireAnyToken,
  valid(
    "param",
    z.object({
      provider: z.enum(ADAPTER_KEYS as [string, ...string[]], {
        error: `provider must be one of: ${ADAPTER_KEYS.join(", ")}`,
      }),
      id: z.string().min(1).max(100, "id must be at most 100 characters"),
    }),
  ),
  valid("query", z.object({ country: country.optional() })),
  async (c) => {
    const { provider, id } = c.req.valid("param");
    const adapter = requireEnabled(c.env, adapterFor(provider)!);
    const song = await outside(adapter.name, () =>
      adapter.track(c.env, id, c.req.valid("query").country),
    );
    if (!song) throw notFound(MSG.trackNotFound(adapter.name));
    return c.json({ ...song, songId: await localSongId(c.env, caller(c, anyToken), song.isrc) });
  },
);

/** GET /song-data/{link}: the link URL-encoded into one path segment. */
songDataRoutes.get("/song-data/:link", requireAnyToken, valid("param", linkParam), async (c) =>
  c.json(await resolveLink(c.env, caller(c, anyToken), c.req.valid("param").link)),
);

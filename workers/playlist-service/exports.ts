import { asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import type { MusicProvider } from "../../shared/songs";
import { outside, ProviderError, requireEnabled, type MusicAdapter } from "../adapters/music";
import type { TokenSource } from "../adapters/music/http";
import { apple, appleCreatePlaylist } from "../adapters/music/apple";
import { spotify, spotifyCreatePlaylist } from "../adapters/music/spotify";
import { db } from "../db/client";
import { crateSongs, songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { findLink, linkedTokenSource, openSecret } from "../user-service/linked-oauth";
import { readableCrate } from "./crate-repo";
import { MSG } from "./messages";

/**
 * POST /exports/spotify and POST /exports/apple: copy a crate into a new playlist in the
 * person's provider account. Only the crate's owner may export it. The provider token is
 * the person's own: `accessToken` when they send one (a Spotify user token, or an Apple
 * Music-User-Token; used for this call only and never kept), else the account they linked
 * (user-service/linked-*.ts; Spotify's token is refreshed once on a 401). Neither: 400.
 */
export const exportRoutes = new Hono<AppEnv>();

const exportBody = z.object({
  crateUuid: fields.uuid,
  name: z
    .string()
    .trim()
    .min(1, "name should not be empty")
    .max(100, "name must be at most 100 characters")
    .optional(),
  accessToken: z
    .string({ error: "accessToken must be a string" })
    .min(1, "accessToken should not be empty")
    .max(4096, "accessToken must be at most 4096 characters")
    .optional(),
});

type CreatePlaylist = (
  env: Env,
  userToken: string | TokenSource,
  name: string,
  description: string,
  ids: string[],
) => Promise<string>;
const TARGETS: { path: "spotify" | "apple"; adapter: MusicAdapter; create: CreatePlaylist }[] = [
  { path: "spotify", adapter: spotify, create: spotifyCreatePlaylist },
  {
    path: "apple",
    adapter: apple,
    create: (env, token, ...rest) =>
      typeof token === "string"
        ? appleCreatePlaylist(env, token, ...rest)
        : token.get(false).then((mut) => appleCreatePlaylist(env, mut, ...rest)),
  },
];

/** The person's linked account as a token source, or a 400 saying how to give one. */
async function linkedSource(
  env: Env,
  userId: number,
  path: "spotify" | "apple",
  name: string,
): Promise<TokenSource> {
  const row = await findLink(env, userId, path, "web");
  if (path === "spotify" && row)
    return linkedTokenSource(env, userId, "spotify", (t) => ({ Authorization: `Bearer ${t}` }));
  const mut = row ? await openSecret(env, row, "access") : null;
  if (!mut) throw new ApiError(400, MSG.noLinkedAccount(name));
  return { retryOn: [], get: async () => mut, header: () => ({}) };
}

/** The crate's songs in order, each with its id at `provider` (undefined when it has none). */
async function crateProviderIds(
  env: Env,
  crateId: number,
  provider: MusicProvider,
): Promise<(string | undefined)[]> {
  const rows = await db(env)
    .select({ providers: songs.musicProviders })
    .from(crateSongs)
    .innerJoin(songs, eq(songs.id, crateSongs.songId))
    .where(eq(crateSongs.crateId, crateId))
    .orderBy(asc(crateSongs.position))
    .all();
  return rows.map((r) => r.providers[provider]);
}

for (const t of TARGETS) {
  exportRoutes.post(`/exports/${t.path}`, requireUser, valid("json", exportBody), async (c) => {
    const who = caller(c);
    const adapter = requireEnabled(c.env, t.adapter);
    const body = c.req.valid("json");
    // Someone else's private crate is 404, as everywhere: its existence is not revealed.
    const crate = await readableCrate(c.env, body.crateUuid, who);
    if (crate.userUuid !== who.uuid) throw forbidden(MSG.exportForbidden);
    const ids = await crateProviderIds(c.env, crate.id, adapter.key);
    const found = ids.filter((id): id is string => !!id);
    const name = body.name ?? crate.crateName;
    const token =
      body.accessToken ?? (await linkedSource(c.env, who.user.id, t.path, adapter.name));
    const playlistUrl = await outside(adapter.name, async () => {
      try {
        return await t.create(c.env, token, name, crate.description ?? "", found);
      } catch (err) {
        // The provider refusing the person's token is their input to fix, not our outage.
        if (err instanceof ProviderError && (err.status === 401 || err.status === 403))
          throw new ApiError(400, MSG.refusedToken(adapter.name));
        throw err;
      }
    });
    const result = {
      provider: adapter.key,
      playlistUrl,
      added: found.length,
      skipped: ids.length - found.length,
    };
    await audit(c, "playlist.export", who.uuid, { crateUuid: crate.crateUuid, ...result });
    return c.json(result);
  });
}

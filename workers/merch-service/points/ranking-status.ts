import { Hono } from "hono";
import type { AppEnv, Env } from "../../env";
import { caller, requireUser } from "../../lib/auth";
import { valid } from "../../lib/validate";
import { standingOf, userUuidParam } from "./ranking-repo";
import { seasonAt } from "./season-repo";

/**
 * A user's ranking status (seed 000: per user and season, with a balance; and a lifetime
 * variant), read from the boards (the authority), public like the ranking itself.
 *
 * - `/points/ranking-status/{userUuid}`: the current season:
 *   `{ userUuid, nickname, avatarId, balance, rank, season }` (balance 0 and rank null when
 *   the user has no points there; season null when none is running).
 * - `/points/ranking-status/sum/{userUuid}`: the same on the lifetime board (season null).
 * - `/points/current-ranking-status` (the caller) and `/{userUuid}`: both at once,
 *   `{ userUuid, nickname, avatarId, season, current: {balance, rank}, lifetime: {balance, rank} }`
 *   (what a profile shows).
 */
export const rankingStatusRoutes = new Hono<AppEnv>();

rankingStatusRoutes.get(
  "/points/ranking-status/sum/:userUuid",
  valid("param", userUuidParam),
  async (c) => c.json(await standingOf(c.env, null, c.req.valid("param").userUuid)),
);

rankingStatusRoutes.get(
  "/points/ranking-status/:userUuid",
  valid("param", userUuidParam),
  async (c) =>
    c.json(await standingOf(c.env, (await seasonAt(c.env)) ?? null, c.req.valid("param").userUuid)),
);

export async function bothStandings(env: Env, userUuid: string) {
  const season = (await seasonAt(env)) ?? null;
  const [now, life] = await Promise.all([
    season ? standingOf(env, season, userUuid) : null,
    standingOf(env, null, userUuid),
  ]);
  return {
    userUuid,
    nickname: life.nickname,
    avatarId: life.avatarId,
    season: now?.season ?? null,
    current: now ? { balance: now.balance, rank: now.rank } : null,
    lifetime: { balance: life.balance, rank: life.rank },
  };
}

rankingStatusRoutes.get("/points/current-ranking-status", requireUser, async (c) =>
  c.json(await bothStandings(c.env, caller(c).uuid)),
);

rankingStatusRoutes.get(
  "/points/current-ranking-status/:userUuid",
  valid("param", userUuidParam),
  async (c) => c.json(await bothStandings(c.env, c.req.valid("param").userUuid)),
);

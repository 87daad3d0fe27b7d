import { serviceApp } from "../lib/service";
import { adminDeadLetterRoutes } from "./points/admin-dead-letters";
import { adminRankingStatusRoutes } from "./points/admin-ranking-status";
import { avatarBackfillRoutes } from "./points/avatar-backfill";
import { pointsRoutes } from "./points/points";
import { rankingStatusRoutes } from "./points/ranking-status";
import { seasonRankingRoutes } from "./points/season-ranking";
import { seasonRoutes } from "./points/seasons";
import { consumableFileRoutes } from "./token-shop/consumable-files";
import { consumablePurchaseRoutes } from "./token-shop/consumable-purchases";
import { consumableRoutes } from "./token-shop/consumables";
import { adminTokenAccountRoutes } from "./token-shop/admin-token-accounts";
import { tokenAccountRoutes } from "./token-shop/token-accounts";
import { tokenBundleRoutes } from "./token-shop/token-bundles";
import { tokenTransactionRoutes } from "./token-shop/token-transactions";
import { adminAvatarRoutes } from "./avatars/admin-avatars";
import { avatarAssignmentRoutes } from "./avatars/avatar-assignments";
import { avatarRoutes } from "./avatars/avatars";
import { customFieldRoutes } from "./avatars/custom-fields";
import { sentryTestingRoutes } from "./sentry-testing";

/**
 * The merch-service, in three folders: the token shop (token-shop/: token accounts and
 * their transactions, bundles, consumables, their files and purchases), points (points/:
 * points, seasons, season and lifetime ranking, ranking status, the avatar backfill, the
 * points dead letters) and
 * avatars (avatars/: avatars and their art, assignments, custom fields), plus the admin's
 * error-reporting test (sentry-testing.ts). Its texts are in messages.ts.
 */
export const merchService = serviceApp("merch-service");
// The token shop (issue 5): accounts, hold endings, bundles, consumables and their files, purchases.
for (const routes of [
  tokenAccountRoutes,
  tokenTransactionRoutes,
  tokenBundleRoutes,
  consumableFileRoutes,
  consumableRoutes,
  consumablePurchaseRoutes,
  adminTokenAccountRoutes,
]) {
  merchService.route("/", routes);
}
// Points, seasons and ranking (issue 6).
for (const routes of [
  pointsRoutes,
  seasonRoutes,
  seasonRankingRoutes,
  rankingStatusRoutes,
  adminRankingStatusRoutes,
  avatarBackfillRoutes,
  // Points the queue gave up on (issue 12).
  adminDeadLetterRoutes,
]) {
  merchService.route("/", routes);
}
// Avatars, their assignments, custom fields and the error-reporting test (issue 6).
for (const routes of [
  adminAvatarRoutes,
  avatarAssignmentRoutes,
  avatarRoutes,
  customFieldRoutes,
  sentryTestingRoutes,
]) {
  merchService.route("/", routes);
}

import { serviceApp } from "../lib/service";
import { adminRankingStatusRoutes } from "./admin-ranking-status";
import { avatarBackfillRoutes } from "./avatar-backfill";
import { pointsRoutes } from "./points";
import { rankingStatusRoutes } from "./ranking-status";
import { seasonRankingRoutes } from "./season-ranking";
import { seasonRoutes } from "./seasons";
import { consumableFileRoutes } from "./consumable-files";
import { consumablePurchaseRoutes } from "./consumable-purchases";
import { consumableRoutes } from "./consumables";
import { tokenAccountRoutes } from "./token-accounts";
import { tokenBundleRoutes } from "./token-bundles";
import { tokenTransactionRoutes } from "./token-transactions";
import { adminAvatarRoutes } from "./admin-avatars";
import { avatarAssignmentRoutes } from "./avatar-assignments";
import { avatarRoutes } from "./avatars";
import { customFieldRoutes } from "./custom-fields";
import { sentryTestingRoutes } from "./sentry-testing";

/** The merch-service. Its resources arrive with their issues; for now it answers its health check. */
export const merchService = serviceApp("merch-service");
// The token store (issue 5): accounts, hold endings, bundles, consumables and their files, purchases.
for (const routes of [
  tokenAccountRoutes,
  tokenTransactionRoutes,
  tokenBundleRoutes,
  consumableFileRoutes,
  consumableRoutes,
  consumablePurchaseRoutes,
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

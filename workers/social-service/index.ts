import { serviceApp } from "../lib/service";
import { adminDjRoutes } from "./admin-djs";
import { blockedUserRoutes } from "./blocked-users";
import { contactBookRoutes } from "./contact-book";
import { djFanRoutes } from "./dj-fans";
import { friendInvitationRoutes } from "./friend-invitations";
import { friendRoutes } from "./friends";

/**
 * The social-service: the graph (DJ fans, friends and invitations, blocks, the contact
 * book). Other code asks about blocks through ./blocks.ts (blockedEitherWay, blocksOf).
 */
export const socialService = serviceApp("social-service");
for (const routes of [
  djFanRoutes,
  adminDjRoutes,
  friendInvitationRoutes,
  friendRoutes,
  blockedUserRoutes,
  contactBookRoutes,
]) {
  socialService.route("/", routes);
}

import { pushStatus } from "../adapters/push";
import { serviceApp } from "../lib/service";
import { adminDjRoutes } from "./admin-djs";
import { blockedUserRoutes } from "./blocked-users";
import { contactBookRoutes } from "./contact-book";
import { deviceRoutes } from "./devices";
import { directMessageRoutes } from "./direct-messages";
import { djFanRoutes } from "./dj-fans";
import { fanNotificationRoutes } from "./fan-notifications";
import { friendInvitationRoutes } from "./friend-invitations";
import { friendRoutes } from "./friends";
import { mobileNotificationRoutes } from "./mobile-notifications";
import { notificationCentreRoutes } from "./notification-centre";
import { notificationSettingsRoutes } from "./notification-settings";
import { peopleSearchRoutes } from "./people-search";
import { webNotificationRoutes } from "./web-notifications";

/**
 * The social-service: the graph (DJ fans, friends and invitations, blocks, the contact book),
 * devices, web push, the notification centre and settings, the sending calls, and direct
 * messages (direct-messages.ts, dm-store.ts). Other code
 * asks about blocks through ./blocks.ts (blockedEitherWay, blocksOf) and notifies people
 * through workers/queues/user-notifications.ts (notifyUsers). Its status says which push
 * channels are on; push off is not unhealthy (the in-app centre gets every notification).
 */
export const socialService = serviceApp("social-service", (env) => ({ push: pushStatus(env) }));
for (const routes of [
  // Before djFanRoutes: `/dj-fans/devices/list` must not be read as a DJ's id.
  fanNotificationRoutes,
  djFanRoutes,
  adminDjRoutes,
  friendInvitationRoutes,
  friendRoutes,
  peopleSearchRoutes,
  blockedUserRoutes,
  contactBookRoutes,
  deviceRoutes,
  webNotificationRoutes,
  notificationCentreRoutes,
  notificationSettingsRoutes,
  mobileNotificationRoutes,
  directMessageRoutes,
]) {
  socialService.route("/", routes);
}

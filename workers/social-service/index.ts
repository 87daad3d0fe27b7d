import { pushStatus } from "../adapters/push";
import { serviceApp } from "../lib/service";
import { deviceRoutes } from "./devices";
import { mobileNotificationRoutes } from "./mobile-notifications";
import { notificationCentreRoutes } from "./notification-centre";
import { notificationSettingsRoutes } from "./notification-settings";
import { webNotificationRoutes } from "./web-notifications";

/**
 * The social-service: devices, web push, the notification centre and settings, and the
 * sending calls (the graph joins it in issue 14's other part). Its status says which push
 * channels are on; push off is not unhealthy (the in-app centre gets every notification).
 */
export const socialService = serviceApp("social-service", (env) => ({ push: pushStatus(env) }));
for (const routes of [
  deviceRoutes,
  webNotificationRoutes,
  notificationCentreRoutes,
  notificationSettingsRoutes,
  mobileNotificationRoutes,
]) {
  socialService.route("/", routes);
}

import type { DeviceRow } from "../../db/schema";
import type { Env } from "../../env";
import { apnsOn, sendApns } from "./apns";
import { fcmOn, sendFcm } from "./fcm";
import type { PushOutcome, PushPayload } from "./types";
import { webPushOn } from "./web-push";

export { sendWebPush, webPushOn } from "./web-push";
export type { PushOutcome, PushPayload } from "./types";

/**
 * Which push channels are on (each only with all its keys). With none, push is "off": the
 * in-app row is still written, so the local product works; the social-service status says so.
 */
export function pushStatus(env: Env) {
  const on = (b: boolean) => (b ? "on" : "off");
  return { webPush: on(webPushOn(env)), fcm: on(fcmOn(env)), apns: on(apnsOn(env)) };
}

/**
 * Sends to one mobile device: iOS tokens go to APNs when it is configured, else to FCM
 * (an app may register its FCM token on iOS too); Android and FCM web tokens go to FCM.
 * A device whose channel is off is skipped (`null`): nothing to send, nothing to retry.
 */
export async function sendToDevice(
  env: Env,
  device: Pick<DeviceRow, "token" | "platform">,
  payload: PushPayload,
): Promise<PushOutcome | null> {
  if (device.platform === "ios" && apnsOn(env)) return sendApns(env, device.token, payload);
  if (fcmOn(env)) return sendFcm(env, device.token, payload);
  return null;
}

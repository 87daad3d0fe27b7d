import { apiRequest } from "./api.client";
import { SOCIAL } from "./social";

/**
 * Browser notifications (Web Push) from the settings page. Permission is asked only inside
 * `enablePush`, which the page calls from the "Enable browser notifications" click; the
 * service worker is ours (/sw.js, `worker-src 'self'`); the subscription goes to the
 * social-service, which delivers with VAPID and aes128gcm.
 */
export type PushState = "unsupported" | "denied" | "off" | "on";

export const pushSupported = () =>
  typeof window !== "undefined" &&
  "serviceWorker" in navigator &&
  "PushManager" in window &&
  "Notification" in window;

async function registration() {
  return navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

/** Where this browser stands, without asking anything. */
export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const reg = await navigator.serviceWorker.getRegistration("/");
  const sub = await reg?.pushManager.getSubscription();
  return sub && Notification.permission === "granted" ? "on" : "off";
}

export class PushError extends Error {
  constructor(public reason: "unsupported" | "denied" | "noKey" | "subscribe") {
    super(reason);
  }
}

/** Asks permission, registers the worker, subscribes with our VAPID key, tells the server. */
export async function enablePush(): Promise<void> {
  if (!pushSupported()) throw new PushError("unsupported");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new PushError("denied");
  const { publicKey } = await apiRequest<{ publicKey: string | null }>(
    `${SOCIAL}/web-notifications/vapid-public-key`,
  );
  if (!publicKey) throw new PushError("noKey");
  const reg = await registration();
  await navigator.serviceWorker.ready;
  let sub: PushSubscription;
  try {
    sub =
      (await reg.pushManager.getSubscription()) ??
      (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey }));
  } catch {
    throw new PushError("subscribe");
  }
  await apiRequest(`${SOCIAL}/web-notifications/subscription`, {
    method: "POST",
    json: sub.toJSON(),
  });
}

/**
 * Unsubscribes this browser. The server forgets the subscription the first time a push to
 * it answers 410 Gone (the API has no call to delete one).
 */
export async function disablePush(): Promise<void> {
  if (!pushSupported()) return;
  const reg = await navigator.serviceWorker.getRegistration("/");
  const sub = await reg?.pushManager.getSubscription();
  await sub?.unsubscribe();
}

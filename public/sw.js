/*
 * Hangout's service worker: web push only (issue 14). Each push carries the JSON the
 * server encrypts (workers/adapters/push/web-push.ts): {uuid, kind, title, body, data} or,
 * for a silent push, {uuid, kind, data, silent: true}, which shows nothing. Clicking a
 * notification focuses a Hangout tab (or opens one) on the page it names, by the same rule
 * as app/lib/social.ts notificationHref.
 */
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function hrefOf(kind, data) {
  const d = data && typeof data === "object" ? data : {};
  const str = (v) => (typeof v === "string" && v ? v : null);
  if (str(d.roomSlug)) return "/rooms/" + encodeURIComponent(d.roomSlug);
  if (kind === "friend_invitation") return "/friends";
  const who = str(d.profileUuid) || str(d.userUuid) || str(d.fromUuid);
  if (who) return "/profile/" + encodeURIComponent(who);
  if (kind === "friend_accepted") return "/friends";
  const url = str(d.url);
  if (url && url.startsWith("/") && !url.startsWith("//")) return url;
  return "/notifications";
}

self.addEventListener("push", (event) => {
  let msg = {};
  try {
    msg = event.data ? event.data.json() : {};
  } catch {
    msg = { title: "Hangout", body: event.data ? event.data.text() : "" };
  }
  if (msg.silent) return;
  const title = typeof msg.title === "string" && msg.title ? msg.title : "Hangout";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof msg.body === "string" ? msg.body : "",
      tag: typeof msg.uuid === "string" ? msg.uuid : undefined,
      icon: "/favicon.ico",
      data: { uuid: msg.uuid, kind: msg.kind, data: msg.data, href: hrefOf(msg.kind, msg.data) },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const href = (event.notification.data && event.notification.data.href) || "/notifications";
  const target = new URL(href, self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      const mine = tabs.find((c) => new URL(c.url).origin === self.location.origin);
      if (mine) return mine.navigate(target).then((c) => (c || mine).focus());
      return self.clients.openWindow(target);
    }),
  );
});

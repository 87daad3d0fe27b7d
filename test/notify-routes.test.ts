import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NOTIFY_LIMITS } from "../shared/notifications";
import { notifyUsers } from "../workers/queues/user-notifications";
import { NOTIFY_MSG } from "../workers/social-service/notify-messages";
import { admin, guestToken, signUp, type TestAccount } from "./helpers";
import { consume, recordingQueue, SERVICE, social } from "./notify-helpers";

/** Devices, the in-app centre and settings: who may call each, and what each changes. */
afterEach(() => vi.restoreAllMocks());

const token = () => `fcm:${crypto.randomUUID().replace(/-/g, "")}`;
const register = (a: TestAccount, t: string, platform = "android") =>
  social("/devices", { token: a.token, body: { token: t, platform } });

async function tokensOf(uuid: string) {
  const { results } = await env.DB.prepare("select token from devices where user_uuid = ?")
    .bind(uuid)
    .all<{ token: string }>();
  return results.map((r) => r.token).sort();
}

describe("devices", () => {
  it("registers a device for the caller", async () => {
    const a = await signUp();
    const t = token();
    const res = await register(a, t, "ios");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token: t, platform: "ios", userUuid: a.uuid });
    expect(await tokensOf(a.uuid)).toEqual([t]);
  });

  it("refuses bad input, a missing token (401) and a guest (403), changing nothing", async () => {
    const a = await signUp();
    for (const body of [
      { token: token(), platform: "blackberry" },
      { token: "short", platform: "ios" },
      { token: "x".repeat(513), platform: "ios" },
      { token: "has spaces in it", platform: "ios" },
      { platform: "ios" },
    ]) {
      const res = await social("/devices", { token: a.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await social("/devices", { body: { token: token(), platform: "ios" } })).status).toBe(
      401,
    );
    expect(
      (
        await social("/devices", {
          token: await guestToken(),
          body: { token: token(), platform: "ios" },
        })
      ).status,
    ).toBe(403);
    expect(await tokensOf(a.uuid)).toEqual([]);
  });

  it("a token belongs to one user at a time: registering another's token moves it", async () => {
    const [a, b] = [await signUp(), await signUp()];
    const t = token();
    await register(a, t);
    await register(b, t);
    expect(await tokensOf(a.uuid)).toEqual([]);
    expect(await tokensOf(b.uuid)).toEqual([t]);
  });

  it("keeps at most the most recently registered devices per user", async () => {
    const a = await signUp();
    const all: string[] = [];
    for (let i = 0; i < NOTIFY_LIMITS.devicesPerUser + 2; i++) {
      all.push(token());
      await register(a, all[i]);
    }
    expect(await tokensOf(a.uuid)).toEqual(all.slice(2).sort());
  });

  it("DELETE /devices/{token} removes the caller's own device only", async () => {
    const [a, b] = [await signUp(), await signUp()];
    const [ta, tb] = [token(), token()];
    await register(a, ta);
    await register(b, tb);
    const other = await social(`/devices/${tb}`, { method: "DELETE", token: a.token });
    expect(other.status).toBe(404);
    expect(other.body.message).toBe(NOTIFY_MSG.deviceNotFound);
    expect(await tokensOf(b.uuid)).toEqual([tb]);
    expect((await social(`/devices/${ta}`, { method: "DELETE", token: a.token })).status).toBe(200);
    expect(await tokensOf(a.uuid)).toEqual([]);
    expect((await social(`/devices/${ta}`, { method: "DELETE" })).status).toBe(401);
  });

  it("/devices/{userUuid}/{token} and single-device: the owner, an admin or a service; nobody else", async () => {
    const [a, b, boss] = [await signUp(), await signUp(), await admin()];
    const t = token();
    await register(a, t);
    const one = `/devices/single-device/${a.uuid}/${t}`;
    expect((await social(one)).status).toBe(401);
    expect((await social(one, { token: b.token })).status).toBe(403);
    expect((await social(one, { headers: { "X-Service-Key": "nope" } })).status).toBe(401);
    for (const who of [{ token: a.token }, { token: boss.token }, { headers: SERVICE }]) {
      const res = await social(one, who);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token: t, userUuid: a.uuid, platform: "android" });
    }
    expect(
      (await social(`/devices/single-device/${a.uuid}/${token()}`, { token: a.token })).status,
    ).toBe(404);
    expect(
      (await social(`/devices/single-device/not-a-uuid/${t}`, { token: a.token })).status,
    ).toBe(400);

    const del = `/devices/${a.uuid}/${t}`;
    expect((await social(del, { method: "DELETE" })).status).toBe(401);
    expect((await social(del, { method: "DELETE", token: b.token })).status).toBe(403);
    expect(await tokensOf(a.uuid)).toEqual([t]);
    expect((await social(del, { method: "DELETE", headers: SERVICE })).status).toBe(200);
    expect(await tokensOf(a.uuid)).toEqual([]);
    await register(a, t);
    expect((await social(del, { method: "DELETE", token: boss.token })).status).toBe(200);
    await register(a, t);
    expect((await social(del, { method: "DELETE", token: a.token })).status).toBe(200);
    expect((await social(del, { method: "DELETE", token: a.token })).status).toBe(404);
  });

  it("all-devices/{userId}: self, an admin or a service", async () => {
    const [a, b, boss] = [await signUp(), await signUp(), await admin()];
    const ts = [token(), token()];
    for (const t of ts) await register(a, t, "web");
    const path = `/devices/all-devices/${a.uuid}`;
    expect((await social(path)).status).toBe(401);
    expect((await social(path, { token: b.token })).status).toBe(403);
    for (const who of [{ token: a.token }, { token: boss.token }, { headers: SERVICE }]) {
      const res = await social(path, who);
      expect(res.status).toBe(200);
      expect(res.body.map((d: { token: string }) => d.token).sort()).toEqual(ts.sort());
    }
  });
});

async function notifications(a: TestAccount, titles: string[]) {
  for (const title of titles) {
    const q = recordingQueue();
    await notifyUsers(q.env, [a.uuid], { kind: "mention", title, body: "b", data: { n: title } });
    await consume(q.messages(), { VAPID_PRIVATE_KEY: undefined });
  }
}

describe("the notification centre", () => {
  it("lists the caller's notifications newest first, paged, with the unread count", async () => {
    const [a, b] = [await signUp(), await signUp()];
    await notifications(a, ["one", "two", "three"]);
    await notifications(b, ["not yours"]);
    const all = await social("/notifications", { token: a.token });
    expect(all.status).toBe(200);
    expect(all.body.items.map((n: { title: string }) => n.title)).toEqual(["three", "two", "one"]);
    expect(all.body).toMatchObject({ total: 3, unreadCount: 3 });
    expect(all.body.items[0]).toMatchObject({
      kind: "mention",
      body: "b",
      data: { n: "three" },
      readAt: null,
    });
    const page = await social("/notifications?take=1&skip=1", { token: a.token });
    expect(page.body.items.map((n: { title: string }) => n.title)).toEqual(["two"]);
    for (const q of [
      "take=51",
      "take=0",
      "skip=-1",
      `skip=${NOTIFY_LIMITS.keepPerUser + 1}`,
      "take=abc",
    ])
      expect((await social(`/notifications?${q}`, { token: a.token })).status, q).toBe(400);
    expect((await social("/notifications")).status).toBe(401);
  });

  it("marks some or all read; another user's notifications are untouched", async () => {
    const [a, b] = [await signUp(), await signUp()];
    await notifications(a, ["one", "two", "three"]);
    await notifications(b, ["theirs"]);
    const mine = (await social("/notifications", { token: a.token })).body.items;
    const theirs = (await social("/notifications", { token: b.token })).body.items;
    const one = await social("/notifications/read", {
      token: a.token,
      body: { uuids: [mine[0].uuid, theirs[0].uuid] },
    });
    expect(one.body).toEqual({ updated: 1, unreadCount: 2 });
    expect((await social("/notifications", { token: b.token })).body.unreadCount).toBe(1);
    const rest = await social("/notifications/read", { token: a.token, body: { all: true } });
    expect(rest.body).toEqual({ updated: 2, unreadCount: 0 });
    expect(
      (await social("/notifications", { token: a.token })).body.items[0].readAt,
    ).not.toBeNull();
    expect((await social("/notifications", { token: b.token })).body.unreadCount).toBe(1);
  });

  it("refuses a read with neither or both of uuids and all, or too many uuids", async () => {
    const a = await signUp();
    const many = Array.from({ length: NOTIFY_LIMITS.keepPerUser + 1 }, () => crypto.randomUUID());
    for (const body of [
      {},
      { all: true, uuids: [crypto.randomUUID()] },
      { all: false },
      { uuids: [] },
      { uuids: many },
      { uuids: ["x"] },
    ]) {
      const res = await social("/notifications/read", { token: a.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await social("/notifications/read", { body: { all: true } })).status).toBe(401);
  });
});

describe("notification settings", () => {
  it("starts with everything on and keeps what the caller sets", async () => {
    const a = await signUp();
    const first = await social("/notification-settings", { token: a.token });
    expect(first.body).toMatchObject({ disabledKinds: [], quietHours: null });
    expect(first.body.kinds).toContain("dj_live");
    const put = await social("/notification-settings", {
      method: "PUT",
      token: a.token,
      body: {
        disabledKinds: ["dj_live", "mention", "dj_live"],
        quietHours: { start: 1320, end: 420, timeZone: "Europe/Madrid" },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      disabledKinds: ["dj_live", "mention"],
      quietHours: { start: 1320, end: 420, timeZone: "Europe/Madrid", utcOffsetMinutes: null },
    });
    // Only quietHours sent: the kinds stay; null clears quiet hours.
    const cleared = await social("/notification-settings", {
      method: "PUT",
      token: a.token,
      body: { quietHours: null },
    });
    expect(cleared.body).toMatchObject({ disabledKinds: ["dj_live", "mention"], quietHours: null });
    expect((await social("/notification-settings", { token: a.token })).body).toEqual(cleared.body);
  });

  it("refuses bad settings with a reason, changing nothing", async () => {
    const a = await signUp();
    const bad: [unknown, string][] = [
      [{}, NOTIFY_MSG.settingsEmpty],
      [{ disabledKinds: ["spam"] }, "kind must be one of"],
      [{ quietHours: { start: 1440, end: 10 } }, "minute of the day"],
      [{ quietHours: { start: 10.5, end: 10 } }, "whole minute"],
      [{ quietHours: { start: 10, end: 20, timeZone: "Mars/Olympus" } }, NOTIFY_MSG.badTimeZone],
      [
        { quietHours: { start: 10, end: 20, timeZone: "UTC", utcOffsetMinutes: 60 } },
        NOTIFY_MSG.zoneOrOffset,
      ],
      [{ quietHours: { start: 10, end: 20, utcOffsetMinutes: 900 } }, "utcOffsetMinutes"],
    ];
    for (const [body, msg] of bad) {
      const res = await social("/notification-settings", { method: "PUT", token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.message)).toContain(msg);
    }
    expect((await social("/notification-settings", { token: a.token })).body).toMatchObject({
      disabledKinds: [],
      quietHours: null,
    });
    expect((await social("/notification-settings")).status).toBe(401);
  });
});

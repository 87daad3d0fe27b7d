import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NOTIFY_MSG } from "../workers/social-service/notify-messages";
import { admin, signUp, type TestAccount } from "./helpers";
import { rowsOf, SERVICE, social } from "./notify-helpers";
import { connect, type RoomClient } from "./room-helpers";
import { createRoom, room as roomApi } from "./room-service-helpers";

/**
 * The sending calls: who may call each (401 without credentials, 403 for a plain user),
 * bounded bodies, and that each goes through the real queue to the recipient's centre.
 */
afterEach(() => vi.restoreAllMocks());

const waitRows = (uuid: string, n = 1) =>
  vi.waitFor(
    async () => {
      const rows = await rowsOf(uuid);
      if (rows.length < n) throw new Error(`waiting for ${n} row(s), have ${rows.length}`);
      return rows;
    },
    { timeout: 8000, interval: 50 },
  );

type Who = "service" | "admin";
const credentials = (who: Who, boss: TestAccount) =>
  who === "service" ? { headers: SERVICE } : { token: boss.token };

describe("who may send", () => {
  const cases: [string, (to: string) => unknown, Who[], boolean][] = [
    [
      "/mobileNotification",
      (to) => ({ userUuids: [to], kind: "event_starting", title: "Starting", body: "now" }),
      ["service", "admin"],
      false,
    ],
    [
      "/mobileNotification/silent-notification",
      (to) => ({ userUuids: [to], data: { sync: 1 } }),
      ["service", "admin"],
      true,
    ],
    [
      "/mobileNotification/user",
      (to) => ({ userUuid: to, title: "Hi", body: "one user" }),
      ["service", "admin"],
      false,
    ],
    [
      "/mobileNotification/admin",
      (to) => ({ userUuids: [to], title: "From staff", body: "hello" }),
      ["admin"],
      false,
    ],
    [
      "/mobileNotification/custom-message",
      (to) => ({ userUuids: [to], title: "Custom", body: "hello" }),
      ["admin"],
      false,
    ],
    [
      "/notifications/custom-message",
      (to) => ({ userUuids: [to], title: "Custom 2", body: "hello" }),
      ["admin"],
      false,
    ],
    [
      "/mobileNotification/user/admin",
      (to) => ({ userUuid: to, title: "Admin", body: "to you" }),
      ["admin"],
      false,
    ],
    [
      "/mobileNotification/user/admin/silent-nofitication",
      (to) => ({ userUuid: to, data: { sync: 2 } }),
      ["admin"],
      true,
    ],
  ];

  for (const [path, body, allowed, silent] of cases) {
    it(`${path}: ${allowed.join(" or ")}; 401 without credentials, 403 for a user`, async () => {
      const [a, to, boss] = [await signUp(), await signUp(), await admin()];
      expect((await social(path, { body: body(to.uuid) })).status).toBe(401);
      expect((await social(path, { body: body(to.uuid), token: a.token })).status).toBe(403);
      expect(
        (await social(path, { body: body(to.uuid), headers: { "X-Service-Key": "wrong" } })).status,
      ).toBe(401);
      if (!allowed.includes("service"))
        expect((await social(path, { body: body(to.uuid), headers: SERVICE })).status).toBe(401);
      for (const who of allowed) {
        const res = await social(path, { body: body(to.uuid), ...credentials(who, boss) });
        expect(res.status, who).toBe(202);
        expect(res.body).toEqual({ queued: true, recipients: 1, messages: 1 });
      }
      const rows = await waitRows(to.uuid, allowed.length);
      expect(rows.every((r) => r.silent === (silent ? 1 : 0))).toBe(true);
      expect(await rowsOf(a.uuid)).toEqual([]);
    });
  }

  it("bounds every body: title, body, data, recipients", async () => {
    const boss = await admin();
    const to = crypto.randomUUID();
    const bad = [
      { userUuids: [to], title: "x".repeat(101), body: "b" },
      { userUuids: [to], title: "t", body: "x".repeat(501) },
      { userUuids: [to], title: "", body: "b" },
      { userUuids: [to], title: "bell\u0007", body: "b" },
      { userUuids: [to], title: "t", body: "b", data: { big: "x".repeat(2100) } },
      { userUuids: [], title: "t", body: "b" },
      { userUuids: Array.from({ length: 1001 }, () => crypto.randomUUID()), title: "t", body: "b" },
      { userUuids: ["not-a-uuid"], title: "t", body: "b" },
      { userUuids: [to], title: "t", body: "b", kind: "spam" },
    ];
    for (const b of bad) {
      const res = await social("/mobileNotification", { body: b, headers: SERVICE });
      expect(res.status, JSON.stringify(b).slice(0, 80)).toBe(400);
    }
    expect(
      (await social("/mobileNotification/admin", { token: boss.token, body: bad[0] })).status,
    ).toBe(400);
  });

  it("/mobileNotification with a throttle key notifies a user once per window", async () => {
    const to = await signUp();
    const body = {
      userUuids: [to.uuid],
      kind: "dj_live",
      title: "sam is live",
      body: "Lounge",
      throttleKey: `dj_live:${crypto.randomUUID()}`,
    };
    expect((await social("/mobileNotification", { body, headers: SERVICE })).status).toBe(202);
    await waitRows(to.uuid);
    expect((await social("/mobileNotification", { body, headers: SERVICE })).status).toBe(202);
    // The second message is consumed (another notification after it arrives) but writes nothing.
    await social("/mobileNotification/user", {
      headers: SERVICE,
      body: { userUuid: to.uuid, title: "after", body: "b" },
    });
    const rows = await waitRows(to.uuid, 2);
    expect(rows.map((r) => r.title).sort()).toEqual(["after", "sam is live"]);
  });

  it("/mobileNotification/all-devices (admin) reaches everyone with a device or a browser", async () => {
    const [withDevice, without, boss] = [await signUp(), await signUp(), await admin()];
    await social("/devices", {
      token: withDevice.token,
      body: { token: `fcm:${crypto.randomUUID()}`, platform: "android" },
    });
    const path = "/mobileNotification/all-devices";
    const body = { title: "Maintenance", body: "tonight" };
    expect((await social(path, { body })).status).toBe(401);
    expect((await social(path, { body, token: withDevice.token })).status).toBe(403);
    const res = await social(path, { body, token: boss.token });
    expect(res.status).toBe(202);
    expect(res.body.recipients).toBeGreaterThanOrEqual(1);
    expect((await waitRows(withDevice.uuid))[0].title).toBe("Maintenance");
    expect(await rowsOf(without.uuid)).toEqual([]);
  });
});

describe("room messages", () => {
  async function liveRoom() {
    const [owner, listener, stranger, moderator] = [
      await signUp(),
      await signUp(),
      await signUp(),
      await signUp(),
    ];
    const room = await createRoom(owner);
    const sockets: RoomClient[] = [];
    for (const p of [owner, listener, stranger])
      sockets.push(await connect(room.uuid, { uuid: p.uuid, token: p.token }));
    return { owner, listener, stranger, moderator, room, sockets };
  }
  const close = (s: RoomClient[]) =>
    s.forEach((c) => (c as unknown as { close?: () => void }).close?.());

  it("the owner, an admin or a service notify the people in the room (not the sender); a user who is not staff cannot", async () => {
    const { owner, listener, stranger, room, sockets } = await liveRoom();
    const boss = await admin();
    const path = "/mobileNotification/room-users";
    const body = { roomId: room.uuid, title: "Dance-off", body: "in 5 minutes" };
    expect((await social(path, { body })).status).toBe(401);
    const refused = await social(path, { body, token: listener.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(NOTIFY_MSG.roomRefused);
    const sent = await social(path, { body, token: owner.token });
    expect(sent.status).toBe(202);
    expect(sent.body.recipients).toBe(2);
    const [row] = await waitRows(listener.uuid);
    expect(row).toMatchObject({ kind: "room_message", title: "Dance-off" });
    await waitRows(stranger.uuid);
    expect(await rowsOf(owner.uuid)).toEqual([]);
    expect((await social(path, { body, token: boss.token })).body.recipients).toBe(3);
    expect((await social(path, { body, headers: SERVICE })).body.recipients).toBe(3);
    expect(
      (await social(path, { body: { ...body, roomId: "no-such-room" }, token: owner.token }))
        .status,
    ).toBe(404);
    close(sockets);
  });

  it("a room moderator may send custom-message-from-room, titled with the room's name", async () => {
    const { owner, listener, moderator, room, sockets } = await liveRoom();
    const grant = await roomApi(`/roomUserRoles/${room.uuid}`, {
      token: owner.token,
      body: { userUuid: moderator.uuid, role: "moderator" },
    });
    expect(grant.status).toBeLessThan(300);
    const path = "/notifications/custom-message-from-room";
    expect(
      (await social(path, { token: listener.token, body: { roomId: room.uuid, message: "hi" } }))
        .status,
    ).toBe(403);
    const res = await social(path, {
      token: moderator.token,
      body: { roomId: room.uuid, message: "Welcome, everyone!" },
    });
    expect(res.status).toBe(202);
    const [row] = await waitRows(listener.uuid);
    expect(row).toMatchObject({ title: room.name, body: "Welcome, everyone!" });
    expect(
      (
        await social(path, {
          token: moderator.token,
          body: { roomId: room.uuid, message: "x".repeat(501) },
        })
      ).status,
    ).toBe(400);
    close(sockets);
  });

  it("a room's staff may send a few messages an hour (each reaches everyone); services are not counted", async () => {
    const { owner, room, sockets } = await liveRoom();
    const path = "/mobileNotification/room-users";
    const body = { roomId: room.uuid, title: "Again", body: "and again" };
    for (let i = 0; i < 5; i++)
      expect((await social(path, { body, token: owner.token })).status).toBe(202);
    const refused = await social(path, { body, token: owner.token });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await social(path, { body, headers: SERVICE })).status).toBe(202);
    close(sockets);
  });

  it("GET /room-users-notification previews the audience and sends nothing", async () => {
    const { owner, listener, room, sockets } = await liveRoom();
    const path = `/room-users-notification?roomId=${room.uuid}`;
    expect((await social(path)).status).toBe(401);
    expect((await social(path, { token: listener.token })).status).toBe(403);
    const res = await social(path, { token: owner.token });
    expect(res.body).toEqual({ roomUuid: room.uuid, recipients: 2 });
    expect((await social(path, { headers: SERVICE })).body.recipients).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(await rowsOf(listener.uuid)).toEqual([]);
    const count = await env.DB.prepare(
      "select count(*) as n from notifications where user_uuid = ?",
    )
      .bind(listener.uuid)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
    close(sockets);
  });
});

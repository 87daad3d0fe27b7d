import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { CLOSE_KICKED } from "../shared/protocol";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import { countRows, signUp, user, webSessionCookie } from "./helpers";
import {
  actionsOn,
  adminAccount,
  auditOf,
  gmod,
  login,
  mod,
  refusesOutsiders,
  row,
  superUser,
  webSessionCount,
} from "./moderation-helpers";
import { connect } from "./room-helpers";
import { createRoom } from "./room-service-helpers";

// Platform kicks and bans (issue 15): who may call them, and what the person notices: their
// open room socket closes with the reason, their next API call, login, web session and room
// socket are refused with a 403 naming the ban, and a temporary ban ends by itself.

const SITE = "http://hangout.test";
/** A browser's own API call from our page, standing on its session cookie. */
const cookieCall = (path: string, cookie: string) =>
  SELF.fetch(`${SITE}/api/user-service${path}`, {
    headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
  });
/** Opens a room socket through the gateway; answers its HTTP status. */
const socketStatus = async (roomUuid: string, token: string) =>
  (
    await SELF.fetch(`http://x/parties/room/${roomUuid}?token=${token}`, {
      headers: { Upgrade: "websocket" },
    })
  ).status;

describe("who may call", () => {
  it("no token is 401 and a plain user 403 on every kick and ban call, and nothing changes", async () => {
    await refusesOutsiders("/users/kick", (t) => ({ userUuid: t.uuid }));
    await refusesOutsiders("/users/ban", (t) => ({ userUuid: t.uuid, reason: "spam" }));
    await refusesOutsiders("/users/temporary-ban", (t) => ({
      userUuid: t.uuid,
      reason: "spam",
      minutes: 10,
    }));
    await refusesOutsiders("/users/unban", (t) => ({ userUuid: t.uuid }));
  });

  it("a moderator cannot kick or ban a moderator, globalModerator, admin or superUser", async () => {
    const m = await mod();
    for (const t of [await mod(), await gmod(), await adminAccount(), await superUser()]) {
      for (const [path, body] of [
        ["/users/ban", { userUuid: t.uuid, reason: "no" }],
        ["/users/kick", { userUuid: t.uuid }],
        ["/users/temporary-ban", { userUuid: t.uuid, reason: "no", minutes: 5 }],
      ] as const) {
        const res = await user(path, { token: m.token, body });
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(MSG.outranked);
      }
      expect(await actionsOn(t.uuid)).toEqual([]);
      expect((await row(t.uuid))!.bannedAt).toBeNull();
    }
  });

  it("nobody bans, kicks or unbans themselves; an admin bans a globalModerator", async () => {
    const a = await adminAccount();
    for (const [path, body] of [
      ["/users/ban", { userUuid: a.uuid, reason: "me" }],
      ["/users/kick", { userUuid: a.uuid, reason: "me" }],
      ["/users/unban", { userUuid: a.uuid }],
    ] as const) {
      const res = await user(path, { token: a.token, body });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(MSG.moderateSelf);
    }
    const g = await gmod();
    const res = await user("/users/ban", {
      token: a.token,
      body: { userUuid: g.uuid, reason: "x" },
    });
    expect(res.status).toBe(201);
    expect(res.body.ban).toEqual({ until: null, reason: "x" });
    expect(res.body.email).toBeUndefined(); // a moderator's answer carries no e-mail
  });

  it("bad input is a 400 with a message and bans no one", async () => {
    const m = await mod();
    const t = await signUp();
    const before = await countRows("moderation_actions");
    for (const body of [
      { userUuid: t.uuid }, // a ban needs a reason
      { userUuid: t.uuid, reason: "" },
      { userUuid: t.uuid, reason: "x".repeat(501) },
      { userUuid: t.uuid, reason: "bell\u0007" },
      { userUuid: "not-a-uuid", reason: "spam" },
      { userUuid: t.uuid, reason: "spam", extra: true },
    ]) {
      const res = await user("/users/ban", { token: m.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
    for (const body of [
      { userUuid: t.uuid, reason: "spam" }, // no end
      { userUuid: t.uuid, reason: "spam", minutes: 0 },
      { userUuid: t.uuid, reason: "spam", minutes: 525_601 },
      { userUuid: t.uuid, reason: "spam", minutes: 1.5 },
      { userUuid: t.uuid, reason: "spam", minutes: 5, until: new Date().toISOString() },
      { userUuid: t.uuid, reason: "spam", until: new Date(Date.now() - 60_000).toISOString() },
      { userUuid: t.uuid, reason: "spam", until: Date.now() + 400 * 86_400_000 },
      { userUuid: t.uuid, reason: "spam", until: "next tuesday" },
    ]) {
      const res = await user("/users/temporary-ban", { token: m.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const unknown = await user("/users/ban", {
      token: m.token,
      body: { userUuid: crypto.randomUUID(), reason: "spam" },
    });
    expect(unknown.status).toBe(404);
    expect(await countRows("moderation_actions")).toBe(before);
    expect((await row(t.uuid))!.bannedAt).toBeNull();
    expect((await user("/users/profile", { token: t.token })).status).toBe(200);
  });
});

describe("a ban", () => {
  it("closes the open room socket with the reason, and refuses the next API call, login, web session and socket", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const kim = await signUp();
    const cookie = await webSessionCookie(kim.token);
    expect((await cookieCall("/users/profile", cookie)).status).toBe(200);
    const watcher = await connect(r.uuid, owner);
    const socket = await connect(r.uuid, kim);
    await watcher.until((s) => s.allUsers.some((u) => u.uuid === kim.uuid), "kim present");
    const m = await mod();

    const res = await user("/users/ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "harassing other listeners" },
    });
    expect(res.status).toBe(201);

    const closed = await socket.closed;
    expect(closed.code).toBe(CLOSE_KICKED);
    const told = socket.messages.find((x) => x.name === "kickedFromRoom") as {
      params: { reason: string };
    };
    expect(told.params.reason).toBe("Your account is banned. Reason: harassing other listeners");
    await watcher.until((s) => !s.allUsers.some((u) => u.uuid === kim.uuid), "kim gone at once");
    watcher.close();

    const next = await user("/users/profile", { token: kim.token });
    expect(next.status).toBe(403);
    expect(next.body.message).toBe("Your account is banned. Reason: harassing other listeners");
    // Public routes too: a banned token is refused on every call.
    expect((await user(`/profile/${owner.uuid}`, { token: kim.token })).status).toBe(403);
    const again = await login(kim);
    expect(again.status).toBe(403);
    expect(again.body.message).toContain("Your account is banned.");
    // The web session stays only to tell the browser why (the web app's banned page).
    const page = await cookieCall("/auth/session", cookie);
    expect(page.status).toBe(403);
    expect(((await page.json()) as { message: string }).message).toBe(
      "Your account is banned. Reason: harassing other listeners",
    );
    expect(await socketStatus(r.uuid, kim.token)).toBe(403);

    const [action] = await actionsOn(kim.uuid);
    expect(action).toMatchObject({
      actionType: "globalBan",
      actorUuid: m.uuid,
      reason: "harassing other listeners",
      until: null,
    });
    const event = await auditOf(action.uuid);
    expect(event).toMatchObject({ topic: "moderation.globalBan", userUuid: m.uuid });
    expect(event.data).toMatchObject({ targetUuid: kim.uuid, reason: "harassing other listeners" });
  });

  it("deletes nothing the person owns: their rooms and profile stay", async () => {
    const kim = await signUp({ nickname: "kimmy" });
    const r = await createRoom(kim);
    const m = await mod();
    await user("/users/ban", { token: m.token, body: { userUuid: kim.uuid, reason: "spam" } });
    expect((await row(kim.uuid))!.nickname).toBe("kimmy");
    const roomRow = await env.DB.prepare("select uuid from rooms where uuid = ?")
      .bind(r.uuid)
      .first();
    expect(roomRow).not.toBeNull();
  });

  it("unban lets them sign in again; a second unban is a 404; each call is one row", async () => {
    const kim = await signUp();
    const cookie = await webSessionCookie(kim.token);
    const m = await mod();
    await user("/users/ban", { token: m.token, body: { userUuid: kim.uuid, reason: "spam" } });
    const un = await user("/users/unban", { token: m.token, body: { userUuid: kim.uuid } });
    expect(un.status).toBe(201);
    expect(un.body.ban).toBeNull();
    // The ban ended the old sessions: the old token and web session are over, a new sign-in works.
    expect((await user("/users/profile", { token: kim.token })).status).toBe(401);
    expect((await cookieCall("/users/profile", cookie)).status).toBe(401);
    const back = await login(kim);
    expect(back.status).toBe(200);
    expect((await user("/users/profile", { token: back.body.token })).status).toBe(200);
    const twice = await user("/users/unban", { token: m.token, body: { userUuid: kim.uuid } });
    expect(twice.status).toBe(404);
    expect(twice.body.message).toBe(MSG.notBanned);
    expect((await actionsOn(kim.uuid)).map((a) => a.actionType)).toEqual([
      "globalBan",
      "globalUnBan",
    ]);
  });
});

describe("a temporary ban", () => {
  it("names its end, and ends by itself when the clock passes it", async () => {
    const kim = await signUp();
    const m = await mod();
    const res = await user("/users/temporary-ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "cool off", minutes: 60 },
    });
    expect(res.status).toBe(201);
    const until = Date.parse(res.body.ban.until);
    expect(until).toBeGreaterThan(Date.now() + 59 * 60_000);
    const refused = await login(kim);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `Your account is banned until ${new Date(until).toISOString()}. Reason: cool off`,
    );
    const [action] = await actionsOn(kim.uuid);
    expect(action).toMatchObject({ actionType: "temporaryBan", until });
    // Its time comes (the row's end in the past, as the clock moving would make it): no job runs.
    await db(env)
      .update(users)
      .set({ bannedUntil: Date.now() - 1 })
      .where(eq(users.uuid, kim.uuid));
    const back = await login(kim);
    expect(back.status).toBe(200);
    expect(back.body.user.ban).toBeNull();
    expect((await user("/users/profile", { token: back.body.token })).status).toBe(200);
    // An ended ban is nothing to lift.
    expect(
      (await user("/users/unban", { token: m.token, body: { userUuid: kim.uuid } })).status,
    ).toBe(404);
  });

  it("takes an ISO end, and a permanent ban over it replaces it", async () => {
    const kim = await signUp();
    const m = await mod();
    const end = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const t = await user("/users/temporary-ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "two days", until: end },
    });
    expect(t.status).toBe(201);
    expect(t.body.ban.until).toBe(end);
    const p = await user("/users/ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "for good" },
    });
    expect(p.body.ban).toEqual({ until: null, reason: "for good" });
    expect((await actionsOn(kim.uuid)).map((a) => a.actionType)).toEqual([
      "temporaryBan",
      "globalBan",
    ]);
  });
});

describe("a kick", () => {
  it("closes the sockets with the reason and ends every session, but sign-in still works", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const kim = await signUp();
    const cookie = await webSessionCookie(kim.token);
    const socket = await connect(r.uuid, kim);
    const m = await gmod();
    const res = await user("/users/kick", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "take a break" },
    });
    expect(res.status).toBe(201);
    expect(res.body.ban).toBeNull();
    expect((await socket.closed).code).toBe(CLOSE_KICKED);
    expect(socket.messages.find((x) => x.name === "kickedFromRoom")).toEqual({
      name: "kickedFromRoom",
      params: { reason: MSG.kickNotice("take a break") },
    });
    expect((await user("/users/profile", { token: kim.token })).status).toBe(401);
    expect(await webSessionCount(kim.uuid)).toBe(0);
    expect((await cookieCall("/users/profile", cookie)).status).toBe(401);
    const back = await login(kim);
    expect(back.status).toBe(200);
    const fresh = await connect(r.uuid, { uuid: kim.uuid, token: back.body.token });
    fresh.close();
    const [action] = await actionsOn(kim.uuid);
    expect(action).toMatchObject({ actionType: "globalKick", reason: "take a break" });
    await auditOf(action.uuid);
  });
});

describe("two moderators at once", () => {
  it("two bans at once both land: one banned account, two action rows", async () => {
    const kim = await signUp();
    const [a, b] = [await mod(), await mod()];
    const results = await Promise.all(
      [a, b].map((m) =>
        user("/users/ban", {
          token: m.token,
          body: { userUuid: kim.uuid, reason: `by ${m.uuid}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201]);
    const rows = await actionsOn(kim.uuid);
    expect(rows.map((r) => r.actionType)).toEqual(["globalBan", "globalBan"]);
    // The ban in force is the one whose row landed last.
    expect((await row(kim.uuid))!.banReason).toBe(rows[1].reason);
  });

  it("a ban and an unban at once end in the state of the row that landed last", async () => {
    const kim = await signUp();
    const [a, b] = [await mod(), await mod()];
    await user("/users/ban", { token: a.token, body: { userUuid: kim.uuid, reason: "first" } });
    const [ban, unban] = await Promise.all([
      user("/users/ban", { token: a.token, body: { userUuid: kim.uuid, reason: "again" } }),
      user("/users/unban", { token: b.token, body: { userUuid: kim.uuid } }),
    ]);
    expect(ban.status).toBe(201);
    expect(unban.status).toBe(201);
    const rows = await actionsOn(kim.uuid);
    expect(rows).toHaveLength(3);
    const banned = (await row(kim.uuid))!.bannedAt !== null;
    expect(banned).toBe(rows[2].actionType === "globalBan");
  });
});

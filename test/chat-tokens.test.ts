import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import { STAGE_MSG } from "../durable/room/messages";
import { LIB_MSG } from "../workers/lib/messages";
import { MSG as ROOM_MSG } from "../workers/room-service/messages";
import { call, guestToken, signUp, user } from "./helpers";
import { connect } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";
import { social } from "./social-helpers";

/**
 * The CometChat calls served by our own chat (issue 16): a chat-scoped user token, a ghost
 * token that only reads, and the service's create-users.
 */

const ghost = async () => {
  const res = await user("/comet-chat/ghost-token");
  expect(res.status).toBe(200);
  return res.body as { authToken: string; uid: string; tokenType: string; expiresAt: string };
};

describe("GET /comet-chat/ghost-token", () => {
  it("issues a ghost token to anyone, each with its own uid, living a day", async () => {
    const [a, b] = [await ghost(), await ghost()];
    expect(a.tokenType).toBe("ghost");
    expect(a.uid).not.toBe(b.uid);
    const hours = (Date.parse(a.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23);
    expect(hours).toBeLessThanOrEqual(24);
    const session = await user("/auth/session", { token: a.authToken });
    expect(session.body).toMatchObject({ tokenType: "ghost", isLoggedIn: false });
  });
});

describe("a ghost token reads only", () => {
  it("every API write refuses it, in every service, and changes nothing", async () => {
    const { authToken: token } = await ghost();
    const dj = await signUp();
    const writes: [string, string, string, unknown][] = [
      ["social-service", "POST", "/dj-fans", { djUuid: dj.uuid }],
      ["social-service", "POST", "/friend-invitations", { userUuid: dj.uuid }],
      ["social-service", "POST", "/direct-messages", { toUuid: dj.uuid, text: "boo" }],
      ["social-service", "PUT", "/direct-messages/settings", { friendsOnly: true }],
      ["audit-service", "POST", "/kinesis", { topic: "x", kinesisDataRecord: {} }],
      ["audit-service", "POST", "/geolocate", {}],
      ["user-service", "POST", "/users/profile", { nickname: "ghosty" }],
      ["room-service", "POST", "/rooms/infrastructure", { name: "Ghost room" }],
      ["playlist-service", "POST", "/crate", { name: "Ghost crate" }],
      ["merch-service", "POST", "/api/v1/token-accounts", {}],
      // A POST that reads, but private rooms: not public state.
      ["room-service", "POST", "/rooms/list", { passwords: ["secret-1"] }],
    ];
    for (const [service, method, path, body] of writes) {
      const res = await call(service, path, { method, body, token });
      expect([service, path, res.status, res.body.message]).toEqual([
        service,
        path,
        403,
        LIB_MSG.ghostReadOnly,
      ]);
    }
    const fans = await social(`/dj-fans/count/${dj.uuid}`, { token });
    expect(fans.body).toMatchObject({ fans: 0 });
  });

  it("reads public rooms: the public list, join as a spectator, room state", async () => {
    const owner = await signUp();
    const open = await createRoom(owner);
    const { authToken: token } = await ghost();
    const listed = await room("/rooms/public?limit=100", { token });
    expect(listed.status).toBe(200);
    const join = await room(`/rooms/${open.uuid}/join`, { token, body: {} });
    expect(join.status).toBe(200);
    expect((await room(`/rooms/room-state/${open.uuid}`, { token })).status).toBe(200);
  });

  it("never enters a password room, even with the password", async () => {
    const owner = await signUp();
    const locked = await createRoom(owner, { password: "let-me-in-1" });
    const { authToken: token } = await ghost();
    const join = await room(`/rooms/${locked.uuid}/join`, {
      token,
      body: { password: "let-me-in-1" },
    });
    expect([join.status, join.body.message]).toEqual([403, ROOM_MSG.ghostPublicOnly]);
    const state = await room(`/rooms/room-state/${locked.uuid}`, { token });
    expect([state.status, state.body.message]).toEqual([403, ROOM_MSG.ghostPublicOnly]);
  });

  it("opens a room socket as an unseen spectator that cannot chat, vote or DJ", async () => {
    const g = await ghost();
    const roomUuid = crypto.randomUUID();
    const watcher = await connect(roomUuid, { uuid: g.uid, token: g.authToken });
    expect(watcher.state!.allUsers.map((u) => u.uuid)).not.toContain(g.uid);
    expect(await watcher.refused({ action: "sendChat", message: "hi", clientId: "c1" })).toBe(
      STAGE_MSG.ghost,
    );
    expect(await watcher.refused({ action: "voteOnSong", songVotes: { like: true } })).toMatch(
      /cannot/i,
    );
    expect(await watcher.refused({ action: "addDj" })).toMatch(/cannot/i);
    expect(watcher.state!.djs).toEqual([]);
    watcher.close();
  });
});

describe("GET /comet-chat/user-token", () => {
  it("needs an account: 401 without a token, 403 for a guest or a ghost", async () => {
    expect((await user("/comet-chat/user-token")).status).toBe(401);
    expect((await user("/comet-chat/user-token", { token: await guestToken() })).status).toBe(403);
    const { authToken } = await ghost();
    expect((await user("/comet-chat/user-token", { token: authToken })).status).toBe(403);
  });

  it("gives a token that opens the direct-message calls and nothing else", async () => {
    const [me, friend] = [await signUp(), await signUp()];
    const res = await user("/comet-chat/user-token", { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: me.uuid, scope: "chat", tokenType: "user" });
    const chat = res.body.authToken as string;
    const sent = await social("/direct-messages", {
      token: chat,
      body: { toUuid: friend.uuid, text: "hello from the chat client" },
    });
    expect(sent.status).toBe(201);
    expect((await social("/direct-messages/conversations", { token: chat })).body.total).toBe(1);
    // The same token is refused everywhere else: it hands over no account.
    const profile = await user("/users/profile", { token: chat });
    expect([profile.status, profile.body.message]).toEqual([403, LIB_MSG.chatTokenOnlyChat]);
    const follow = await social("/dj-fans", { token: chat, body: { djUuid: friend.uuid } });
    expect(follow.status).toBe(403);
    expect((await user("/comet-chat/user-token", { token: chat })).status).toBe(403);
  });

  it("dies with the account's sessions (a password change or logout everywhere)", async () => {
    const me = await signUp();
    const chat = (await user("/comet-chat/user-token", { token: me.token })).body.authToken;
    await db(env)
      .update(users)
      .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
      .where(eq(users.uuid, me.uuid));
    expect((await social("/direct-messages/conversations", { token: chat })).status).toBe(401);
  });
});

describe("POST /comet-chat/create-users (service-only)", () => {
  const SERVICE = { "X-Service-Key": "test-service-key" };

  it("401 without a key or token, 403 for a plain user, 401 for a wrong key", async () => {
    const body = { uids: [crypto.randomUUID()] };
    expect((await user("/comet-chat/create-users", { body })).status).toBe(401);
    const plain = await signUp();
    expect((await user("/comet-chat/create-users", { body, token: plain.token })).status).toBe(403);
    const wrong = await user("/comet-chat/create-users", {
      body,
      headers: { "X-Service-Key": "no" },
    });
    expect(wrong.status).toBe(401);
  });

  it("answers which uids are chat users and which are no account", async () => {
    const a = await signUp();
    const nobody = crypto.randomUUID();
    const res = await user("/comet-chat/create-users", {
      body: { uids: [a.uuid, nobody, a.uuid] },
      headers: SERVICE,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [a.uuid], missing: [nobody] });
  });

  it("bounds the list: empty, over 100 or not uuids is 400", async () => {
    for (const uids of [[], Array.from({ length: 101 }, () => crypto.randomUUID()), ["x"]]) {
      const res = await user("/comet-chat/create-users", { body: { uids }, headers: SERVICE });
      expect(res.status).toBe(400);
    }
  });
});

import { env } from "cloudflare:test";
import { eq, or } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { friendInvitations, friends, users } from "../workers/db/schema";
import { answerInvitation } from "../workers/social-service/friendship";
import { SOCIAL_MSG } from "../workers/social-service/messages";
import { admin, signUp } from "./helpers";
import {
  accounts,
  areFriends,
  befriend,
  block,
  expectGuarded,
  handle,
  invite,
  social,
} from "./social-helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";
const invitationsOf = (uuid: string) =>
  db(env)
    .select()
    .from(friendInvitations)
    .where(or(eq(friendInvitations.fromUuid, uuid), eq(friendInvitations.toUuid, uuid)))
    .all();
const friendRowsOf = (uuid: string) =>
  db(env)
    .select()
    .from(friends)
    .where(or(eq(friends.userA, uuid), eq(friends.userB, uuid)))
    .all();

describe("POST /friend-invitations", () => {
  it("sends a pending invitation; the recipient sees it, the sender sees it", async () => {
    const [a, b] = await accounts(2);
    const res = await invite(a, b);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromUuid: a.uuid, toUuid: b.uuid, status: "pending" });
    const forB = await social("/friend-invitations/user-invitations-for", { token: b.token });
    expect(forB.body).toMatchObject({
      total: 1,
      data: [{ uuid: res.body.uuid, from: { uuid: a.uuid } }],
    });
    const fromA = await social("/friend-invitations/user-invitations-from", { token: a.token });
    expect(fromA.body).toMatchObject({
      total: 1,
      data: [{ uuid: res.body.uuid, to: { uuid: b.uuid } }],
    });
    expect(
      (await social("/friend-invitations/user-invitations-for", { token: a.token })).body.total,
    ).toBe(0);
  });

  it("refuses yourself (400); someone who blocked you fails exactly like a missing user (404)", async () => {
    const [a, b] = await accounts(2);
    expect(await invite(a, a)).toMatchObject({
      status: 400,
      body: { message: SOCIAL_MSG.selfInvite },
    });
    const missing = await social("/friend-invitations", {
      token: a.token,
      body: { userUuid: MISSING },
    });
    await block(b, a);
    const blocked = await invite(a, b);
    expect(missing.status).toBe(404);
    expect(blocked).toEqual({ ...missing, headers: blocked.headers });
    expect(await invitationsOf(b.uuid)).toHaveLength(0);
  });

  it("refuses a second invitation while one is pending (409), and one to a friend (409)", async () => {
    const [a, b] = await accounts(2);
    await invite(a, b);
    expect(await invite(a, b)).toMatchObject({
      status: 409,
      body: { message: SOCIAL_MSG.invitationPending },
    });
    expect(await invitationsOf(a.uuid)).toHaveLength(1);
    const [c, d] = await accounts(2);
    await befriend(c, d);
    expect(await invite(d, c)).toMatchObject({
      status: 409,
      body: { message: SOCIAL_MSG.alreadyFriends },
    });
  });

  it("crossing invitations: inviting someone who invited you makes you friends at once", async () => {
    const [a, b] = await accounts(2);
    const first = await invite(a, b);
    const second = await invite(b, a);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ uuid: first.body.uuid, status: "accepted", friends: true });
    expect(await areFriends(a, b)).toBe(true);
    expect(await friendRowsOf(a.uuid)).toHaveLength(1);
  });

  it("two crossing invitations sent at the same moment end as ONE friendship", async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await accounts(2);
      const res = await Promise.all([invite(a, b), invite(b, a)]);
      expect(res.map((r) => r.status).sort()).toEqual([200, 201]);
      expect(await friendRowsOf(a.uuid)).toHaveLength(1);
      const invs = await invitationsOf(a.uuid);
      expect(invs.map((i) => i.status)).toEqual(["accepted"]);
    }
  });

  it("is 400 for a bad body, 401 without a token, 403 for a guest", async () => {
    const a = await signUp();
    for (const body of [{}, { userUuid: "x" }, { userUuid: [MISSING] }])
      expect((await social("/friend-invitations", { token: a.token, body })).status).toBe(400);
    expect(await invitationsOf(a.uuid)).toHaveLength(0);
    expect(await expectGuarded("POST", "/friend-invitations", { userUuid: a.uuid })).toEqual([
      401, 403,
    ]);
  });
});

describe("POST /friend-invitations/handle-friend", () => {
  it("the recipient accepts: a friendship; the same answer again is the same 200", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    const res = await handle(b, inv.uuid);
    expect(res).toMatchObject({ status: 200, body: { status: "accepted", friends: true } });
    expect(await handle(b, inv.uuid)).toMatchObject({ status: 200, body: { status: "accepted" } });
    expect(await handle(b, inv.uuid, "rejected")).toMatchObject({
      status: 409,
      body: { message: SOCIAL_MSG.invitationNotPending },
    });
    expect(await areFriends(b, a)).toBe(true);
    expect(
      (await social("/friend-invitations/user-invitations-for", { token: b.token })).body.total,
    ).toBe(0);
  });

  it("the recipient rejects: no friendship, and a new invitation may follow", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    expect(await handle(b, inv.uuid, "rejected")).toMatchObject({
      status: 200,
      body: { status: "rejected", friends: false },
    });
    expect(await handle(b, inv.uuid)).toMatchObject({ status: 409 });
    expect(await areFriends(a, b)).toBe(false);
    expect((await invite(a, b)).status).toBe(201);
  });

  it("only the recipient may answer: the sender and strangers get 404", async () => {
    const [a, b, c] = await accounts(3);
    const inv = (await invite(a, b)).body;
    expect((await handle(a, inv.uuid)).status).toBe(404);
    expect((await handle(c, inv.uuid)).status).toBe(404);
    expect((await handle(b, MISSING)).status).toBe(404);
    expect(await areFriends(a, b)).toBe(false);
  });

  it("accepted twice at the same moment makes one friendship", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    const res = await Promise.all(Array.from({ length: 5 }, () => handle(b, inv.uuid)));
    expect(res.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(await friendRowsOf(a.uuid)).toHaveLength(1);
  });

  it("is 400 for a bad status or uuid, 401/403 without an account", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    for (const body of [
      { invitationUuid: inv.uuid, status: "pending" },
      { invitationUuid: inv.uuid },
      { invitationUuid: "nope", status: "accepted" },
    ])
      expect(
        (await social("/friend-invitations/handle-friend", { token: b.token, body })).status,
      ).toBe(400);
    expect((await invitationsOf(a.uuid))[0].status).toBe("pending");
    expect(
      await expectGuarded("POST", "/friend-invitations/handle-friend", {
        invitationUuid: inv.uuid,
        status: "accepted",
      }),
    ).toEqual([401, 403]);
  });
});

describe("withdrawing and listing invitations", () => {
  it("the sender withdraws a pending invitation; nobody else can", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    const del = (t: string) =>
      social(`/friend-invitations/${inv.uuid}`, { method: "DELETE", token: t });
    expect((await del(b.token)).status).toBe(404);
    expect(await del(a.token)).toMatchObject({ status: 200, body: { withdrawn: true } });
    expect((await del(a.token)).status).toBe(404);
    expect(await invitationsOf(a.uuid)).toHaveLength(0);
    expect(
      (await social("/friend-invitations/nope", { method: "DELETE", token: a.token })).status,
    ).toBe(400);
  });

  it("user-invitations/{id}: all of a user's invitations for themselves or an admin; 403 for others", async () => {
    const [a, b, c] = await accounts(3);
    const i1 = (await invite(a, b)).body;
    await handle(b, i1.uuid, "rejected");
    await invite(c, a);
    const path = `/friend-invitations/user-invitations/${a.uuid}`;
    const self = await social(path, { token: a.token });
    expect(self.body.total).toBe(2);
    expect(self.body.data.map((i: { status: string }) => i.status).sort()).toEqual([
      "pending",
      "rejected",
    ]);
    expect((await social(path, { token: (await admin()).token })).body.total).toBe(2);
    expect((await social(path, { token: b.token })).status).toBe(403);
    expect((await social(`${path}?take=1000000000`, { token: a.token })).status).toBe(400);
    expect(await expectGuarded("GET", path, undefined)).toEqual([401, 403]);
    for (const p of ["user-invitations-for", "user-invitations-from"])
      expect(await expectGuarded("GET", `/friend-invitations/${p}`, undefined)).toEqual([401, 403]);
  });
});

describe("friends", () => {
  it("friend list: the user, their friends and admins may look; strangers get 403", async () => {
    const [a, b, c, stranger] = await accounts(4);
    await befriend(a, b);
    await befriend(c, a);
    const path = `/friends/list/${a.uuid}`;
    const own = await social(path, { token: a.token });
    expect(own.body.total).toBe(2);
    expect(own.body.data[0]).toMatchObject({ uuid: c.uuid, friendsSince: expect.any(String) });
    expect(own.body.data[0]).not.toHaveProperty("email");
    expect((await social(path, { token: b.token })).body.total).toBe(2);
    expect((await social(path, { token: (await admin()).token })).status).toBe(200);
    expect(await social(path, { token: stranger.token })).toMatchObject({
      status: 403,
      body: { message: SOCIAL_MSG.friendListHidden },
    });
    expect((await social(`${path}?take=1&skip=1`, { token: a.token })).body.data[0].uuid).toBe(
      b.uuid,
    );
    expect((await social(`/friends/list/${MISSING}`, { token: a.token })).status).toBe(404);
    expect((await social(`${path}?skip=-1`, { token: a.token })).status).toBe(400);
    expect(await expectGuarded("GET", path, undefined)).toEqual([401, 403]);
  });

  it("a friend who deactivates leaves the list", async () => {
    const [a, b] = await accounts(2);
    await befriend(a, b);
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, b.uuid));
    expect((await social(`/friends/list/${a.uuid}`, { token: a.token })).body.total).toBe(0);
  });

  it("GET /friends/{id} and /friends/single-friend/{id}; DELETE unfriends, idempotently", async () => {
    const [a, b] = await accounts(2);
    expect((await social(`/friends/single-friend/${b.uuid}`, { token: a.token })).status).toBe(404);
    await befriend(a, b);
    expect((await social(`/friends/${b.uuid}`, { token: a.token })).body).toMatchObject({
      friends: true,
      friendsSince: expect.any(String),
    });
    const one = await social(`/friends/single-friend/${a.uuid}`, { token: b.token });
    expect(one.body).toMatchObject({
      userUuid: b.uuid,
      friendUuid: a.uuid,
      friend: { uuid: a.uuid },
    });
    for (let i = 0; i < 2; i++)
      expect(
        (await social(`/friends/${a.uuid}`, { method: "DELETE", token: b.token })).body,
      ).toEqual({ friends: false });
    expect(await areFriends(a, b)).toBe(false);
    expect((await invite(b, a)).status).toBe(201);
    for (const [m, p] of [
      ["GET", `/friends/${a.uuid}`],
      ["GET", `/friends/single-friend/${a.uuid}`],
      ["DELETE", `/friends/${a.uuid}`],
    ])
      expect(await expectGuarded(m, p, undefined)).toEqual([401, 403]);
    expect((await social("/friends/bad", { token: a.token })).status).toBe(400);
  });
});

describe("answerInvitation (friendship.ts)", () => {
  it("a stale accept (the invitation already answered) never re-makes an ended friendship", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    await handle(b, inv.uuid);
    await social(`/friends/${a.uuid}`, { method: "DELETE", token: b.token });
    const row = { uuid: inv.uuid, fromUuid: a.uuid, toUuid: b.uuid };
    expect(await answerInvitation(env, row, "accepted")).toBe(false);
    expect(await friendRowsOf(a.uuid)).toHaveLength(0);
  });
});

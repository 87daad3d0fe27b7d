import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { blockedUsers } from "../workers/db/schema";
import { blockedEitherWay, blocksOf } from "../workers/social-service/blocks";
import { SOCIAL_MSG } from "../workers/social-service/messages";
import { signUp } from "./helpers";
import {
  accounts,
  areFriends,
  befriend,
  block,
  expectGuarded,
  follow,
  invite,
  social,
} from "./social-helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";
const uuids = (body: { data: { uuid: string }[] }) => body.data.map((p) => p.uuid);

describe("POST /blocked-users", () => {
  it("blocks; twice is idempotent and answers the same; self 400, unknown 404", async () => {
    const [a, b] = await accounts(2);
    const first = await block(a, b);
    expect(first).toMatchObject({
      status: 201,
      body: { blockerUuid: a.uuid, blockedUuid: b.uuid },
    });
    expect((await block(a, b)).body).toEqual(first.body);
    const rows = await db(env)
      .select()
      .from(blockedUsers)
      .where(eq(blockedUsers.blockerUuid, a.uuid))
      .all();
    expect(rows).toHaveLength(1);
    expect(await block(a, a)).toMatchObject({
      status: 400,
      body: { message: SOCIAL_MSG.selfBlock },
    });
    const unknown = await social("/blocked-users", { token: a.token, body: { userUuid: MISSING } });
    expect(unknown.status).toBe(404);
    for (const body of [{}, { userUuid: "x" }, { userUuid: b.uuid, more: true }])
      expect((await social("/blocked-users", { token: a.token, body })).status).toBe(400);
    expect(await expectGuarded("POST", "/blocked-users", { userUuid: b.uuid })).toEqual([401, 403]);
  });

  it("ends the friendship, pending invitations both ways and follows both ways", async () => {
    const [a, b, c] = await accounts(3);
    await befriend(a, b);
    await follow(a, b);
    await follow(b, a);
    await invite(a, c);
    await invite(c, a);
    await invite(b, c);
    await block(a, b);
    expect(await areFriends(a, b)).toBe(false);
    expect((await social(`/dj-fans/count/${a.uuid}`, { token: a.token })).body).toEqual({
      fans: 0,
      following: 0,
    });
    // Only what lay between a and b ended; a's crossing invitation with c became a friendship.
    expect(await areFriends(a, c)).toBe(true);
    const fromB = await social("/friend-invitations/user-invitations-from", { token: b.token });
    expect(fromB.body.total).toBe(1);
    await block(c, b);
    expect(
      (await social("/friend-invitations/user-invitations-from", { token: b.token })).body.total,
    ).toBe(0);
  });

  it("refuses their invitations and follows, in both directions, with the not-found answer", async () => {
    const [a, b] = await accounts(2);
    await block(a, b);
    for (const res of [await invite(b, a), await invite(a, b), await follow(b, a)])
      expect(res).toMatchObject({ status: 404, body: { message: SOCIAL_MSG.userNotFound } });
  });

  it("a block landing while an invitation is pending leaves nothing to accept", async () => {
    const [a, b] = await accounts(2);
    const inv = (await invite(a, b)).body;
    await block(a, b);
    const res = await social("/friend-invitations/handle-friend", {
      token: b.token,
      body: { invitationUuid: inv.uuid, status: "accepted" },
    });
    expect(res.status).toBe(404);
    expect(await areFriends(a, b)).toBe(false);
  });
});

describe("GET and DELETE /blocked-users", () => {
  it("lists whom I blocked with profiles, says whether I blocked id, and unblocks idempotently", async () => {
    const [a, b, c] = await accounts(3);
    await block(a, b);
    await block(a, c);
    await block(c, a);
    const list = await social("/blocked-users", { token: a.token });
    expect(list.body).toMatchObject({ total: 2, skip: 0, take: 12 });
    expect(uuids(list.body).sort()).toEqual([b.uuid, c.uuid].sort());
    expect(list.body.data[0]).toHaveProperty("blockedAt");
    expect(list.body.data[0]).not.toHaveProperty("email");
    expect((await social(`/blocked-users/${b.uuid}`, { token: a.token })).body.blocked).toBe(true);
    // b did not block a: whether someone blocked me is not mine to ask.
    expect((await social(`/blocked-users/${a.uuid}`, { token: b.token })).body.blocked).toBe(false);
    for (let i = 0; i < 2; i++)
      expect(
        (await social(`/blocked-users/${b.uuid}`, { method: "DELETE", token: a.token })).body,
      ).toEqual({
        blocked: false,
      });
    expect((await social("/blocked-users", { token: a.token })).body.total).toBe(1);
    expect((await invite(b, a)).status).toBe(201);
    expect((await social("/blocked-users?take=1000000000", { token: a.token })).status).toBe(400);
    expect((await social("/blocked-users/nope", { token: a.token })).status).toBe(400);
    for (const [m, p] of [
      ["GET", "/blocked-users"],
      ["GET", `/blocked-users/${b.uuid}`],
      ["DELETE", `/blocked-users/${b.uuid}`],
    ])
      expect(await expectGuarded(m, p, undefined)).toEqual([401, 403]);
  });
});

describe("blocked users are hidden from each other", () => {
  it("in fans, following, friends lists (for the two of them only)", async () => {
    const [dj, fan, troll, other] = await accounts(4);
    await follow(fan, dj);
    await follow(troll, dj);
    await befriend(other, fan);
    await befriend(other, troll);
    await block(fan, troll);
    const fansSeenBy = async (t: string) =>
      uuids((await social(`/dj-fans/dj-fans-paginated/${dj.uuid}`, { token: t })).body).sort();
    expect(await fansSeenBy(fan.token)).toEqual([fan.uuid]);
    expect(await fansSeenBy(troll.token)).toEqual([troll.uuid]);
    expect(await fansSeenBy(other.token)).toEqual([fan.uuid, troll.uuid].sort());
    const friendsOfOther = (t: string) => social(`/friends/list/${other.uuid}`, { token: t });
    expect(uuids((await friendsOfOther(fan.token)).body)).toEqual([fan.uuid]);
    expect(uuids((await friendsOfOther(troll.token)).body)).toEqual([troll.uuid]);
    expect((await friendsOfOther(other.token)).body.total).toBe(2);
    const plain = await social(`/dj-fans/dj-fans/${dj.uuid}`, { token: troll.token });
    expect(plain.body.map((r: { userUuid: string }) => r.userUuid)).toEqual([troll.uuid]);
  });
});

describe("blockedEitherWay and blocksOf (for the room and searches)", () => {
  it("answer what is stored", async () => {
    const [a, b, c] = await accounts(3);
    await block(a, b);
    await block(a, c);
    expect(await blockedEitherWay(env, a.uuid, b.uuid)).toBe(true);
    expect(await blockedEitherWay(env, b.uuid, a.uuid)).toBe(true);
    expect(await blockedEitherWay(env, b.uuid, c.uuid)).toBe(false);
    expect((await blocksOf(env, a.uuid)).sort()).toEqual([b.uuid, c.uuid].sort());
    expect(await blocksOf(env, b.uuid)).toEqual([]);
    const d = await signUp();
    expect(await blockedEitherWay(env, d.uuid, a.uuid)).toBe(false);
  });
});

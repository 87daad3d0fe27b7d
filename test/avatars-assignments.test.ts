import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { dropLostAvatar } from "../workers/merch-service/avatars/avatar-rules";
import { admin, countRows, signUp, type TestAccount } from "./helpers";
import {
  assign,
  avatarIdOf,
  makeAvatar,
  makeSeason,
  merch,
  setSubscription,
  uniqueSlug,
  wear,
} from "./avatars-helpers";

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});

describe("POST /avatar-assignment/{slug}", () => {
  it("gives an avatar once per user: a repeat answers the same row with 200", async () => {
    const a = await makeAvatar(boss.token, { status: "PRIVATE" });
    const u = await signUp();
    const first = await assign(boss.token, a.slug, u.uuid, "PURCHASED");
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      avatarSlug: a.slug,
      userUuid: u.uuid,
      type: "PURCHASED",
      seasonId: null,
    });
    const before = await countRows("avatar_assignments");
    const again = await assign(boss.token, a.slug, u.uuid, "MANUAL");
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // A service with the key gets the same answer; concurrent repeats still make one row.
    const viaKey = await merch(`/avatar-assignment/${a.slug}`, {
      headers: { "X-Service-Key": "test-service-key" },
      body: { userUuid: u.uuid, type: "MANUAL" },
    });
    expect(viaKey.body.id).toBe(first.body.id);
    const v = await signUp();
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => assign(boss.token, a.slug, v.uuid)),
    );
    expect(new Set(burst.map((r) => r.body.id)).size).toBe(1);
    expect(burst.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await countRows("avatar_assignments")).toBe(before + 1);
  });

  it("a SEASON_AWARD assignment names the avatar's season by default", async () => {
    const season = await makeSeason();
    const a = await makeAvatar(boss.token, {
      status: "SEASON_AWARD",
      seasonId: season.id,
      pointsThreshold: 10,
    });
    const u = await signUp();
    expect((await assign(boss.token, a.slug, u.uuid, "SEASON_AWARD")).body).toMatchObject({
      type: "SEASON_AWARD",
      seasonId: season.id,
    });
  });

  it("refuses bad input and unknown avatars or users, and writes nothing", async () => {
    const a = await makeAvatar(boss.token);
    const u = await signUp();
    const before = await countRows("avatar_assignments");
    const bad: [unknown, RegExp][] = [
      [{}, /userUuid/],
      [{ userUuid: "nope" }, /userUuid must be a UUID/],
      [{ userUuid: u.uuid, type: "GIFT" }, /type must be one of MANUAL, SEASON_AWARD, PURCHASED/],
      [{ userUuid: u.uuid, seasonId: "x" }, /seasonId must be a number/],
    ];
    for (const [body, message] of bad) {
      const res = await merch(`/avatar-assignment/${a.slug}`, { token: boss.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(message);
    }
    expect((await assign(boss.token, uniqueSlug(), u.uuid)).body).toMatchObject({
      statusCode: 404,
      message: "Avatar not found.",
    });
    expect((await assign(boss.token, a.slug, crypto.randomUUID())).body).toMatchObject({
      statusCode: 404,
      message: "User not found.",
    });
    expect(
      (
        await merch(`/avatar-assignment/${a.slug}`, {
          token: boss.token,
          body: { userUuid: u.uuid, seasonId: 987654 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await merch(`/avatar-assignment/${a.slug}`, {
          token: boss.token,
          body: { userUuid: u.uuid },
          headers: { "X-Service-Key": "wrong" },
        })
      ).status,
    ).toBe(401);
    expect(await countRows("avatar_assignments")).toBe(before);
  });
});

describe("DELETE /avatar-assignment/{id}", () => {
  it("takes a PRIVATE avatar off the user who loses it", async () => {
    const a = await makeAvatar(boss.token, { status: "PRIVATE" });
    const u = await signUp();
    const other = await signUp();
    const given = (await assign(boss.token, a.slug, u.uuid)).body;
    await assign(boss.token, a.slug, other.uuid);
    expect((await wear(u.token, a.slug)).status).toBe(200);
    expect((await wear(other.token, a.slug)).status).toBe(200);
    const del = await merch(`/avatar-assignment/${given.id}`, {
      method: "DELETE",
      token: boss.token,
    });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: given.id, deleted: true });
    expect(await avatarIdOf(u.uuid)).toBeNull();
    expect(await avatarIdOf(other.uuid)).toBe(a.slug);
    expect((await wear(u.token, a.slug)).status).toBe(403);
    expect(
      (await merch(`/avatar-assignment/${given.id}`, { method: "DELETE", token: boss.token }))
        .status,
    ).toBe(404);
    expect(
      (await merch("/avatar-assignment/not-a-uuid", { method: "DELETE", token: boss.token }))
        .status,
    ).toBe(400);
  });

  it("leaves a PUBLIC avatar on: the user may still use it", async () => {
    const a = await makeAvatar(boss.token);
    const u = await signUp();
    const given = (await assign(boss.token, a.slug, u.uuid)).body;
    await wear(u.token, a.slug);
    await merch(`/avatar-assignment/${given.id}`, { method: "DELETE", token: boss.token });
    expect(await avatarIdOf(u.uuid)).toBe(a.slug);
  });
});

describe("the admin's view of an avatar", () => {
  it("counts wearers and lists assignments", async () => {
    const a = await makeAvatar(boss.token, { status: "PRIVATE" });
    const u = await signUp();
    await assign(boss.token, a.slug, u.uuid, "PURCHASED");
    await wear(u.token, a.slug);
    const res = await merch(`/admin/avatars/${a.slug}`, { token: boss.token });
    expect(res.body).toMatchObject({
      slug: a.slug,
      status: "PRIVATE",
      wearers: 1,
      assignments: [{ userUuid: u.uuid, type: "PURCHASED" }],
    });
    expect((await merch(`/admin/avatars/${uniqueSlug()}`, { token: boss.token })).status).toBe(404);
    expect((await merch("/admin/avatars/Not_A_Slug", { token: boss.token })).status).toBe(400);
  });
});

describe("dropLostAvatar (for writes elsewhere, e.g. a subscription ending)", () => {
  it("takes off a SUBSCRIBER_ONLY avatar once the subscription is gone, and leaves others alone", async () => {
    const sub = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    const pub = await makeAvatar(boss.token);
    const u = await signUp();
    const v = await signUp();
    await setSubscription(u.uuid, "PLUS");
    await wear(u.token, sub.slug);
    await wear(v.token, pub.slug);
    await dropLostAvatar(env, u.uuid);
    expect(await avatarIdOf(u.uuid)).toBe(sub.slug);
    await setSubscription(u.uuid, null);
    await dropLostAvatar(env, u.uuid);
    await dropLostAvatar(env, v.uuid);
    expect(await avatarIdOf(u.uuid)).toBeNull();
    expect(await avatarIdOf(v.uuid)).toBe(pub.slug);
  });
});

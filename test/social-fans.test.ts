import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { djFans, users } from "../workers/db/schema";
import { FANS_PAGE_SIZE } from "../workers/social-service/people";
import { admin, guestToken, signUp } from "./helpers";
import { accounts, block, expectGuarded, follow, social } from "./social-helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";
const fanRows = (dj: string) => db(env).select().from(djFans).where(eq(djFans.djUuid, dj)).all();

describe("POST /dj-fans", () => {
  it("follows a DJ; following twice is idempotent and answers the same", async () => {
    const [fan, dj] = await accounts(2);
    const first = await follow(fan, dj);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ djUuid: dj.uuid, userUuid: fan.uuid });
    const again = await follow(fan, dj);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await fanRows(dj.uuid)).toHaveLength(1);
  });

  it("refuses following yourself (400), an unknown or deactivated DJ (404), and a DJ who blocked you (the same 404)", async () => {
    const [fan, dj, gone, blocker] = await accounts(4);
    const self = await follow(fan, fan);
    expect(self.status).toBe(400);
    const unknown = await social("/dj-fans", { token: fan.token, body: { djUuid: MISSING } });
    expect(unknown.status).toBe(404);
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, gone.uuid));
    expect((await follow(fan, gone)).status).toBe(404);
    expect((await block(blocker, fan)).status).toBe(201);
    const blocked = await follow(fan, blocker);
    expect(blocked).toMatchObject({ status: 404, body: { message: unknown.body.message } });
    expect(await fanRows(blocker.uuid)).toHaveLength(0);
    expect((await follow(fan, dj)).status).toBe(201);
  });

  it("needs an account: 401 without a token, 403 for a guest", async () => {
    const dj = await signUp();
    expect(await expectGuarded("POST", "/dj-fans", { djUuid: dj.uuid })).toEqual([401, 403]);
  });

  it("is 400 for a bad body and changes nothing", async () => {
    const fan = await signUp();
    for (const body of [{}, { djUuid: "nope" }, { djUuid: 5 }, { djUuid: MISSING, extra: 1 }]) {
      const res = await social("/dj-fans", { token: fan.token, body });
      expect(res.status).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
    const rows = await db(env).select().from(djFans).where(eq(djFans.userUuid, fan.uuid)).all();
    expect(rows).toHaveLength(0);
  });

  it("counts exactly under concurrency: 20 fans at once give 20; one fan 10 times at once gives 1", async () => {
    const dj = await signUp();
    const fans = await accounts(20);
    const res = await Promise.all(fans.map((f) => follow(f, dj)));
    expect(res.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect((await social(`/dj-fans/count/${dj.uuid}`, { token: fans[0].token })).body).toEqual({
      fans: 20,
      following: 0,
    });
    const dj2 = await signUp();
    const same = await Promise.all(Array.from({ length: 10 }, () => follow(fans[0], dj2)));
    expect(same.every((r) => r.status === 201)).toBe(true);
    expect((await social(`/dj-fans/count/${dj2.uuid}`, { token: dj2.token })).body.fans).toBe(1);
    expect((await social(`/dj-fans/count/${fans[0].uuid}`, { token: dj2.token })).body).toEqual({
      fans: 0,
      following: 2,
    });
  });
});

describe("fans and following lists", () => {
  it("pages fans 12 at a time with profiles and total, newest first", async () => {
    const dj = await signUp();
    const fans = await accounts(14);
    for (const f of fans) await follow(f, dj);
    const viewer = await guestToken();
    const p1 = await social(`/dj-fans/dj-fans-paginated/${dj.uuid}`, { token: viewer });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ total: 14, skip: 0, take: FANS_PAGE_SIZE });
    expect(p1.body.data).toHaveLength(12);
    expect(p1.body.data[0]).toMatchObject({ uuid: fans[13].uuid, followedAt: expect.any(String) });
    expect(p1.body.data[0]).not.toHaveProperty("email");
    const p2 = await social(`/dj-fans/dj-fans-paginated/${dj.uuid}?skip=12`, { token: viewer });
    expect(p2.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([fans[1].uuid, fans[0].uuid]);
    const plain = await social(`/dj-fans/dj-fans/${dj.uuid}?take=3`, { token: viewer });
    expect(plain.body).toEqual(
      fans
        .slice(11)
        .reverse()
        .map((f) => ({ djUuid: dj.uuid, userUuid: f.uuid, createdAt: expect.any(String) })),
    );
  });

  it("lists the DJs I follow and the DJs anyone follows", async () => {
    const [fan, a, b] = await accounts(3);
    await follow(fan, a);
    await follow(fan, b);
    const mine = await social("/dj-fans", { token: fan.token });
    expect(mine.body.total).toBe(2);
    expect(mine.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([b.uuid, a.uuid]);
    const theirs = await social(`/dj-fans/${fan.uuid}/djs-followed?take=1`, { token: a.token });
    expect(theirs.body).toMatchObject({ total: 2, take: 1, data: [{ uuid: b.uuid }] });
  });

  it("hides deactivated fans from lists and counts", async () => {
    const [dj, f1, f2] = await accounts(3);
    await follow(f1, dj);
    await follow(f2, dj);
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, f2.uuid));
    const list = await social(`/dj-fans/dj-fans-paginated/${dj.uuid}`, { token: dj.token });
    expect(list.body.total).toBe(1);
    expect((await social(`/dj-fans/count/${dj.uuid}`, { token: dj.token })).body.fans).toBe(1);
  });

  it("is 400 for take=10^9, take=0, negative skip or a bad id; 404 for an unknown user; 401 without a token", async () => {
    const dj = await signUp();
    for (const q of ["take=1000000000", "take=0", "take=51", "skip=-1", "skip=abc"]) {
      const res = await social(`/dj-fans/dj-fans-paginated/${dj.uuid}?${q}`, { token: dj.token });
      expect(res.status, q).toBe(400);
    }
    expect((await social("/dj-fans/dj-fans/not-a-uuid", { token: dj.token })).status).toBe(400);
    expect((await social(`/dj-fans/count/${MISSING}`, { token: dj.token })).status).toBe(404);
    for (const path of [
      `/dj-fans/dj-fans-paginated/${dj.uuid}`,
      `/dj-fans/dj-fans/${dj.uuid}`,
      `/dj-fans/count/${dj.uuid}`,
      `/dj-fans/${dj.uuid}/djs-followed`,
    ])
      expect(await expectGuarded("GET", path, undefined, { guestsAllowed: true })).toEqual([401]);
    expect(await expectGuarded("GET", "/dj-fans", undefined)).toEqual([401, 403]);
  });
});

describe("whether I follow, and unfollow", () => {
  it("answers whether I follow a DJ; DELETE unfollows and is idempotent", async () => {
    const [fan, dj] = await accounts(2);
    const before = await social(`/dj-fans/dj-fan/${dj.uuid}`, { token: fan.token });
    expect(before.body).toEqual({ following: false, followedAt: null });
    await follow(fan, dj);
    const during = await social(`/dj-fans/dj-fan/${dj.uuid}`, { token: fan.token });
    expect(during.body).toMatchObject({ following: true, followedAt: expect.any(String) });
    for (let i = 0; i < 2; i++) {
      const res = await social(`/dj-fans/${dj.uuid}`, { method: "DELETE", token: fan.token });
      expect(res).toMatchObject({ status: 200, body: { following: false } });
    }
    expect(await fanRows(dj.uuid)).toHaveLength(0);
    expect(await expectGuarded("DELETE", `/dj-fans/${dj.uuid}`, undefined)).toEqual([401, 403]);
    expect(await expectGuarded("GET", `/dj-fans/dj-fan/${dj.uuid}`, undefined)).toEqual([401, 403]);
  });

  it("unfollowing only removes my own follow", async () => {
    const [f1, f2, dj] = await accounts(3);
    await follow(f1, dj);
    await follow(f2, dj);
    await social(`/dj-fans/${dj.uuid}`, { method: "DELETE", token: f1.token });
    expect((await fanRows(dj.uuid)).map((r) => r.userUuid)).toEqual([f2.uuid]);
  });
});

describe("admin views", () => {
  it("GET /dj-fans/admin/{id}: a user's follows and fans with timestamps, deactivated ones included", async () => {
    const [u, dj, fan] = await accounts(3);
    await follow(u, dj);
    await follow(fan, u);
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, fan.uuid));
    const res = await social(`/dj-fans/admin/${u.uuid}`, { token: (await admin()).token });
    expect(res.status).toBe(200);
    expect(res.body.follows).toMatchObject({
      total: 1,
      data: [{ djUuid: dj.uuid, createdAt: expect.any(String) }],
    });
    expect(res.body.fans).toMatchObject({
      total: 1,
      data: [{ userUuid: fan.uuid, deactivated: true }],
    });
    expect(
      await expectGuarded("GET", `/dj-fans/admin/${u.uuid}`, undefined, { admin: true }),
    ).toEqual([401, 403, 403]);
  });

  it("GET /admin/djs ranks DJs by fan count; /admin/djs/{id} has counts", async () => {
    const [big, small] = await accounts(2);
    const fans = await accounts(3);
    await Promise.all(fans.map((f) => follow(f, big)));
    await follow(fans[0], small);
    const a = await admin();
    let seen: { uuid: string; fans: number }[] = [];
    for (let skip = 0; ; skip += 50) {
      const page = await social(`/admin/djs?take=50&skip=${skip}`, { token: a.token });
      expect(page.status).toBe(200);
      seen = seen.concat(page.body.data);
      if (skip + 50 >= page.body.total) break;
    }
    const counts = seen.map((d) => d.fans);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    expect(seen.find((d) => d.uuid === big.uuid)?.fans).toBe(3);
    expect(seen.find((d) => d.uuid === small.uuid)?.fans).toBe(1);
    const one = await social(`/admin/djs/${big.uuid}`, { token: a.token });
    expect(one.body).toMatchObject({
      uuid: big.uuid,
      fans: 3,
      following: 0,
      firstFanAt: expect.any(String),
    });
    expect((await social(`/admin/djs/${MISSING}`, { token: a.token })).status).toBe(404);
    expect((await social("/admin/djs?take=1000000000", { token: a.token })).status).toBe(400);
    for (const path of ["/admin/djs", `/admin/djs/${big.uuid}`])
      expect(await expectGuarded("GET", path, undefined, { admin: true })).toEqual([401, 403, 403]);
  });
});

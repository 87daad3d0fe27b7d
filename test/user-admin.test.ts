import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import { accountWithRoles, admin, guestToken, signUp, user, type TestAccount } from "./helpers";

const setRow = (uuid: string, values: Partial<typeof users.$inferInsert>) =>
  db(env).update(users).set(values).where(eq(users.uuid, uuid));
const q = (params: Record<string, string | string[]>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) s.append(k, x);
  return `/admin/users?${s}`;
};
const nicks = (body: { data: { nickname: string }[] }) => body.data.map((u) => u.nickname);

describe("GET /admin/users", () => {
  // Five accounts whose nicknames share a prefix no other test uses.
  const prefix = `adm${Math.random().toString(36).slice(2, 7)}`;
  let boss: TestAccount;
  let people: TestAccount[];

  beforeAll(async () => {
    boss = await admin();
    people = [];
    for (const tag of ["c", "a", "e", "b", "d"])
      people.push(await signUp({ nickname: `${prefix}-${tag}` }));
    await setRow(people[2].uuid, { roles: ["user", "admin"] }); // -e
    await setRow(people[3].uuid, { emailVerified: true, firstName: "Bea" }); // -b
    await setRow(people[4].uuid, { deactivated: true }); // -d
  });

  it("filters, sorts and pages with the right numbers", async () => {
    const filter = `nickname||$starts||${prefix}`;
    const page1 = await user(q({ filter, sort: "nickname,ASC", limit: "2" }), {
      token: boss.token,
    });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ count: 2, total: 5, page: 1, pageCount: 3 });
    expect(nicks(page1.body)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    const page3 = await user(q({ filter, sort: "nickname,ASC", limit: "2", page: "3" }), {
      token: boss.token,
    });
    expect(page3.body).toMatchObject({ count: 1, total: 5, page: 3, pageCount: 3 });
    expect(nicks(page3.body)).toEqual([`${prefix}-e`]);
    const byOffset = await user(q({ filter, sort: "nickname,DESC", limit: "2", offset: "2" }), {
      token: boss.token,
    });
    expect(byOffset.body).toMatchObject({ count: 2, total: 5, page: 2 });
    expect(nicks(byOffset.body)).toEqual([`${prefix}-c`, `${prefix}-b`]);
    // Default order: newest account first (id DESC).
    const dflt = await user(q({ filter }), { token: boss.token });
    expect(nicks(dflt.body)).toEqual(["d", "b", "e", "a", "c"].map((t) => `${prefix}-${t}`));
    // Full own profiles: e-mail, roles and the deactivated flag included.
    expect(dflt.body.data[0]).toMatchObject({
      email: people[4].email,
      deactivated: true,
      roles: ["user"],
    });
  });

  it("pages rows that tie on the sort key in one fixed order, without repeating or losing any", async () => {
    const when = Date.now() - 3600_000;
    for (const p of people) await setRow(p.uuid, { createdAt: when });
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await user(
        q({
          filter: `nickname||$starts||${prefix}`,
          sort: "createdAt,DESC",
          limit: "2",
          page: String(page),
        }),
        { token: boss.token },
      );
      seen.push(...nicks(res.body));
    }
    // Ties are broken by the newest account first (id descending), the same on every page.
    expect(seen).toEqual(["d", "b", "e", "a", "c"].map((t) => `${prefix}-${t}`));
    const again = await user(
      q({ filter: `nickname||$starts||${prefix}`, sort: "createdAt,DESC", limit: "5" }),
      { token: boss.token },
    );
    expect(nicks(again.body)).toEqual(seen);
  });

  it("matches roles as text, booleans as true/false, and combines filters", async () => {
    const token = boss.token;
    const starts = `nickname||$starts||${prefix}`;
    const admins = await user(q({ filter: [starts, "roles||$cont||admin"] }), { token });
    expect(nicks(admins.body)).toEqual([`${prefix}-e`]);
    const verified = await user(q({ filter: [starts, "emailVerified||$eq||true"] }), { token });
    expect(nicks(verified.body)).toEqual([`${prefix}-b`]);
    const active = await user(
      q({ filter: [starts, "deactivated||$eq||false"], sort: "nickname,ASC" }),
      { token },
    );
    expect(active.body.total).toBe(4);
    expect(nicks(active.body)).not.toContain(`${prefix}-d`);
    const oneOf = await user(
      q({ filter: `nickname||$in||${prefix}-a,${prefix}-c`, sort: "nickname,ASC" }),
      { token },
    );
    expect(nicks(oneOf.body)).toEqual([`${prefix}-a`, `${prefix}-c`]);
    const either = await user(
      q({
        or: [`nickname||$eq||${prefix}-a`, `email||$eq||${people[0].email}`],
        sort: "nickname,ASC",
      }),
      { token },
    );
    expect(nicks(either.body)).toEqual([`${prefix}-a`, `${prefix}-c`]);
  });

  it("searches with s, which wins over filter", async () => {
    const s = JSON.stringify({
      $and: [
        { nickname: { $cont: prefix } },
        { $or: [{ firstName: "Bea" }, { roles: { $cont: "admin" } }] },
      ],
    });
    const res = await user(q({ s, filter: "nickname||$eq||nobody", sort: "nickname,ASC" }), {
      token: boss.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, count: 2, pageCount: 1 });
    expect(nicks(res.body)).toEqual([`${prefix}-b`, `${prefix}-e`]);
    const ci = await user(
      q({ s: JSON.stringify({ nickname: { $contL: prefix.toUpperCase() } }) }),
      { token: boss.token },
    );
    expect(ci.body.total).toBe(5);
  });

  it("answers only the asked fields (and id) with fields=", async () => {
    const res = await user(q({ filter: `nickname||$eq||${prefix}-a`, fields: "nickname,email" }), {
      token: boss.token,
    });
    expect(res.body.data).toEqual([
      { id: people[1].id, nickname: `${prefix}-a`, email: people[1].email },
    ]);
  });

  it("answers an empty page when nothing matches", async () => {
    const res = await user(q({ filter: "nickname||$eq||no-such-person-ever" }), {
      token: boss.token,
    });
    expect(res.body).toEqual({ data: [], count: 0, total: 0, page: 1, pageCount: 1 });
  });

  it("refuses bad queries with 400 and a message", async () => {
    const cases: [Record<string, string | string[]>, string][] = [
      [
        { filter: "passwordHash||$eq||x" },
        'Invalid field "passwordHash": allowed fields are id, uuid, email, nickname, firstName, lastName, roles, emailVerified, deactivated, createdAt, updatedAt.',
      ],
      [{ filter: "nickname||$like||x" }, 'Invalid operator "$like".'],
      [{ filter: "nickname" }, 'Invalid filter "nickname": use field||$op||value.'],
      [{ sort: "passwordHash,ASC" }, 'Invalid sort field "passwordHash".'],
      [{ sort: "nickname,UP" }, 'Invalid sort order "UP": use ASC or DESC.'],
      [{ fields: "nickname,passwordHash" }, 'Invalid field "passwordHash".'],
      [{ limit: "0" }, "limit must be at least 1"],
      [{ limit: "101" }, "limit must be at most 100"],
      [{ page: "0" }, "page must be at least 1"],
      [{ s: "{not json" }, "Invalid search: s must be JSON."],
      [{ s: "[1]" }, "Invalid search: s must be a JSON object."],
    ];
    for (const [params, message] of cases) {
      const res = await user(q(params), { token: boss.token });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
      expect([res.body.message].flat().join(" | "), JSON.stringify(params)).toContain(message);
    }
  });

  it("answers queries D1 could not run with 400, never 500 (object values, deep s, too many values or filters)", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => i + 1).join(",");
    const deep = '{"$and":['.repeat(200) + "{}" + "]}".repeat(200);
    const cases: Record<string, string | string[]>[] = [
      { s: '{"id":{"$eq":{"a":1}}}' },
      { s: '{"nickname":{"$cont":[1]}}' },
      { s: '{"id":{"$in":[{"a":1}]}}' },
      { s: deep },
      { filter: `id||$in||${ids}` },
      { filter: Array.from({ length: 120 }, (_, i) => `id||$ne||${i}`) },
      { sort: Array.from({ length: 50 }, () => "id,ASC") },
    ];
    for (const params of cases) {
      const res = await user(q(params), { token: boss.token });
      expect(res.status, JSON.stringify(params).slice(0, 80)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
    // Within the bounds the same shapes still work.
    const some = await user(q({ filter: `uuid||$in||${people.map((p) => p.uuid).join(",")}` }), {
      token: boss.token,
    });
    expect(some.body.total).toBe(5);
  });

  it("is 401 without a token and 403 to a plain user, a moderator, a guest or a service key alone", async () => {
    expect((await user("/admin/users")).status).toBe(401);
    expect(
      (await user("/admin/users", { headers: { "X-Service-Key": "test-service-key" } })).status,
    ).toBe(401);
    expect((await user("/admin/users", { token: (await signUp()).token })).status).toBe(403);
    expect(
      (
        await user("/admin/users", {
          token: (await accountWithRoles(["user", "moderator", "globalModerator"])).token,
        })
      ).status,
    ).toBe(403);
    expect((await user("/admin/users", { token: await guestToken() })).status).toBe(403);
    expect(
      (await user("/admin/users", { token: (await accountWithRoles(["superUser"])).token })).status,
    ).toBe(200);
  });
});

describe("GET /admin/users/{id}", () => {
  it("answers the full profile with the e-mail rows, by numeric id or uuid, deactivated included", async () => {
    const boss = await admin();
    const a = await signUp({ nickname: "Inspected" });
    await setRow(a.uuid, { deactivated: true });
    for (const id of [String(a.id), a.uuid]) {
      const res = await user(`/admin/users/${id}`, { token: boss.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: a.id,
        uuid: a.uuid,
        email: a.email,
        nickname: "Inspected",
        deactivated: true,
        roles: ["user"],
      });
      expect(res.body.emails).toEqual([
        {
          id: expect.any(Number),
          email: a.email,
          type: "personal",
          status: "PENDING_VERIFICATION",
        },
      ]);
      expect(res.body).not.toHaveProperty("passwordHash");
    }
  });

  it("is 404 with the catalogue's message for an unknown user and 400 for a bad id", async () => {
    const boss = await admin();
    const missing = await user(`/admin/users/${crypto.randomUUID()}`, { token: boss.token });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(MSG.profileNotFound);
    const bad = await user("/admin/users/not-an-id", { token: boss.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("id must be a UUID or a numeric id");
  });

  it("is 401 without a token and 403 to a plain user or a guest", async () => {
    const a = await signUp();
    expect((await user(`/admin/users/${a.id}`)).status).toBe(401);
    expect((await user(`/admin/users/${a.id}`, { token: a.token })).status).toBe(403);
    expect((await user(`/admin/users/${a.id}`, { token: await guestToken() })).status).toBe(403);
  });
});

import { describe, expect, it } from "vitest";
import { admin, signUp } from "./helpers";
import { auditApi, storeEvents } from "./audit-helpers";

// The audit page's contract (GET /audit-events, /audit-events/topics, /audit-events/{id}):
// who may call it, each filter, paging bounds and bad input.

const uuid = () => crypto.randomUUID();
const HOUR = 3_600_000;

describe("GET /audit-events: who may call", () => {
  it("401 without a token, 403 for a plain user, on the list, the topics and one event", async () => {
    const [row] = await storeEvents([{ userUuid: uuid() }]);
    const plain = await signUp();
    for (const path of ["/audit-events", "/audit-events/topics", `/audit-events/${row.id}`]) {
      expect((await auditApi(path)).status, path).toBe(401);
      const res = await auditApi(path, { token: plain.token });
      expect(res.status, path).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(row.eventId);
    }
  });
});

describe("GET /audit-events: filters", () => {
  it("userUuid finds the user's events as user, actor or target, and nobody else's", async () => {
    const kim = uuid();
    const [own, acted, targeted] = await storeEvents([
      { userUuid: kim, topic: "user.login" },
      { userUuid: uuid(), actorUuid: kim, topic: "room.create" },
      { userUuid: uuid(), actorUuid: uuid(), targetUuid: kim, topic: "moderation.globalBan" },
      { userUuid: uuid(), topic: "user.login" },
    ]);
    const boss = await admin();
    const res = await auditApi(`/audit-events?userUuid=${kim}`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((e: { id: number }) => e.id).sort()).toEqual(
      [own.id, acted.id, targeted.id].sort(),
    );
  });

  it("answers the contract's fields, times in ISO, newest first", async () => {
    const kim = uuid();
    const t = Date.now() - HOUR;
    await storeEvents([
      { userUuid: kim, topic: "user.login", occurredAt: t },
      {
        userUuid: kim,
        actorUuid: kim,
        targetUuid: null,
        requestId: "ray-1",
        country: "FR",
        region: "Île-de-France",
        city: "Paris",
        topic: "room.create",
        data: { slug: "x" },
        occurredAt: t + 1000,
      },
    ]);
    const res = await auditApi(`/audit-events?userUuid=${kim}`, { token: (await admin()).token });
    expect(res.body.data.map((e: { topic: string }) => e.topic)).toEqual([
      "room.create",
      "user.login",
    ]);
    expect(res.body.data[0]).toEqual({
      id: expect.any(Number),
      eventId: expect.any(String),
      topic: "room.create",
      userUuid: kim,
      actorUuid: kim,
      targetUuid: null,
      requestId: "ray-1",
      country: "FR",
      region: "Île-de-France",
      city: "Paris",
      data: { slug: "x" },
      occurredAt: new Date(t + 1000).toISOString(),
    });
    expect(res.body).toMatchObject({ total: 2, skip: 0, take: 50 });
  });

  it("topic is exact, or a prefix when it ends in '.', with no wildcard meaning", async () => {
    const kim = uuid();
    const p = `t${uuid().slice(0, 8)}`;
    await storeEvents([
      { userUuid: kim, topic: `${p}.ban` },
      { userUuid: kim, topic: `${p}.unban` },
      { userUuid: kim, topic: `${p}x.ban` }, // shares the letters, not the prefix
      { userUuid: kim, topic: `${p}` },
    ]);
    const token = (await admin()).token;
    const list = async (q: string) =>
      (await auditApi(`/audit-events?userUuid=${kim}&${q}`, { token })).body.data
        .map((e: { topic: string }) => e.topic)
        .sort();
    expect(await list(`topic=${p}.`)).toEqual([`${p}.ban`, `${p}.unban`]);
    expect(await list(`topic=${p}.ban`)).toEqual([`${p}.ban`]);
    expect(await list(`topic=${p}`)).toEqual([p]);
    // '_' would match any character in a LIKE; here it is just a character.
    expect(await list(`topic=${p.slice(0, -1)}_.`)).toEqual([]);
  });

  it("from and to bound the time (inclusive), as ISO or epoch ms", async () => {
    const kim = uuid();
    const t0 = Date.UTC(2026, 0, 10, 12);
    await storeEvents([
      { userUuid: kim, topic: "a.one", occurredAt: t0 - 1 },
      { userUuid: kim, topic: "a.two", occurredAt: t0 },
      { userUuid: kim, topic: "a.three", occurredAt: t0 + HOUR },
      { userUuid: kim, topic: "a.four", occurredAt: t0 + HOUR + 1 },
    ]);
    const token = (await admin()).token;
    const topics = async (q: string) =>
      (await auditApi(`/audit-events?userUuid=${kim}&${q}`, { token })).body.data.map(
        (e: { topic: string }) => e.topic,
      );
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await topics(`from=${iso(t0)}&to=${iso(t0 + HOUR)}`)).toEqual(["a.three", "a.two"]);
    expect(await topics(`from=${t0}&to=${t0 + HOUR}`)).toEqual(["a.three", "a.two"]);
    expect(await topics(`from=${t0 + HOUR}`)).toEqual(["a.four", "a.three"]);
    expect(await topics(`to=${t0 - 1}`)).toEqual(["a.one"]);
  });

  it("pages with skip and take, with the total of every match", async () => {
    const kim = uuid();
    const t = Date.now() - 10 * HOUR;
    await storeEvents(
      Array.from({ length: 7 }, (_, i) => ({ userUuid: kim, topic: `p.e${i}`, occurredAt: t + i })),
    );
    const token = (await admin()).token;
    const page = (q: string) => auditApi(`/audit-events?userUuid=${kim}&${q}`, { token });
    const first = await page("take=3");
    expect(first.body).toMatchObject({ total: 7, skip: 0, take: 3 });
    expect(first.body.data.map((e: { topic: string }) => e.topic)).toEqual([
      "p.e6",
      "p.e5",
      "p.e4",
    ]);
    const last = await page("take=3&skip=6");
    expect(last.body.data.map((e: { topic: string }) => e.topic)).toEqual(["p.e0"]);
    expect((await page("take=100")).body.data).toHaveLength(7);
  });
});

describe("GET /audit-events: bad input is a 400 naming it", () => {
  it.each([
    ["take=101", "take must be at most 100"],
    ["take=0", "take must be at least 1"],
    ["skip=-1", "skip must not be negative"],
    ["skip=100001", "skip must be at most 100000"],
    ["from=yesterday", "from must be an ISO date-time or epoch milliseconds"],
    ["to=1e9", "to must be an ISO date-time or epoch milliseconds"],
    ["from=12", "from must be an ISO date-time or epoch milliseconds"],
    ["from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from must not be after to"],
    ["topic=moderation.%25", "topic may hold letters, digits and . _ : - only"],
    [`topic=${"a".repeat(101)}`, "topic must be at most 100 characters"],
    [`userUuid=${"a".repeat(101)}`, "userUuid"],
  ])("%s", async (q, message) => {
    const res = await auditApi(`/audit-events?${q}`, { token: (await admin()).token });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toContain(message);
  });
});

describe("GET /audit-events/{id} and /audit-events/topics", () => {
  it("answers one event by id, 404 for none, 400 for a non-number", async () => {
    const kim = uuid();
    const [row] = await storeEvents([{ userUuid: kim, topic: "user.login", data: { ip: "x" } }]);
    const token = (await admin()).token;
    const one = await auditApi(`/audit-events/${row.id}`, { token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: row.id,
      userUuid: kim,
      topic: "user.login",
      data: { ip: "x" },
    });
    const none = await auditApi(`/audit-events/${row.id + 1_000_000}`, { token });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe("Audit event not found.");
    expect((await auditApi("/audit-events/abc", { token })).status).toBe(400);
  });

  it("lists every distinct stored topic once, sorted", async () => {
    const p = `zz${uuid().slice(0, 8)}`;
    await storeEvents([
      { topic: `${p}.b` },
      { topic: `${p}.a` },
      { topic: `${p}.b` },
      { topic: `${p}.c` },
    ]);
    const res = await auditApi("/audit-events/topics", { token: (await admin()).token });
    expect(res.status).toBe(200);
    expect(res.body.filter((t: string) => t.startsWith(p))).toEqual([`${p}.a`, `${p}.b`, `${p}.c`]);
    expect([...res.body].sort()).toEqual(res.body);
    expect(new Set(res.body).size).toBe(res.body.length);
  });

  it("no route changes or deletes an event (append-only)", async () => {
    const [row] = await storeEvents([{ userUuid: uuid() }]);
    const token = (await admin()).token;
    for (const method of ["PATCH", "PUT", "DELETE"]) {
      const res = await auditApi(`/audit-events/${row.id}`, { token, method, body: {} });
      expect(res.status, method).toBe(404);
    }
    expect((await auditApi(`/audit-events/${row.id}`, { token })).body.eventId).toBe(row.eventId);
  });
});

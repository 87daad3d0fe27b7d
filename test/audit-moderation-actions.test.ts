import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { moderationActions } from "../workers/db/schema";
import { BULK_MAX } from "../workers/audit-service/moderation-actions";
import { MSG } from "../workers/audit-service/messages";
import { admin, signUp } from "./helpers";
import { actionsOn, auditOf, mod } from "./moderation-helpers";
import { auditApi } from "./audit-helpers";

// The moderation action log for admins (/moderation-actions): who may call it, the crud
// query language over it, bulk bounds, and the history staying true (reason-only edits,
// no delete).

const record = (token: string, targetUuid: string, over: Record<string, unknown> = {}) =>
  auditApi("/moderation-actions", {
    token,
    body: { actionType: "banUser", targetUuid, reason: "spam in room", ...over },
  });

describe("who may call /moderation-actions", () => {
  it("401 without a token and 403 for a plain user or a moderator, on every route; nothing written", async () => {
    const target = await signUp();
    const boss = await admin();
    const { body: action } = await record(boss.token, target.uuid);
    const moderator = await mod();
    const calls: [string, string, unknown?][] = [
      ["GET", "/moderation-actions"],
      ["POST", "/moderation-actions", { actionType: "banUser", targetUuid: target.uuid }],
      [
        "POST",
        "/moderation-actions/bulk",
        { bulk: [{ actionType: "banUser", targetUuid: target.uuid }] },
      ],
      ["GET", `/moderation-actions/${action.id}`],
      ["PATCH", `/moderation-actions/${action.id}`, { reason: "changed" }],
      ["PUT", `/moderation-actions/${action.id}`, { reason: "changed" }],
      ["DELETE", `/moderation-actions/${action.id}`],
    ];
    for (const [method, path, body] of calls) {
      expect((await auditApi(path, { method, body })).status, `${method} ${path}`).toBe(401);
      for (const who of [await signUp(), moderator]) {
        const res = await auditApi(path, { method, body, token: who.token });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    }
    const rows = await actionsOn(target.uuid);
    expect(rows).toHaveLength(1);
    expect(rows[0].reason).toBe("spam in room");
  });
});

describe("POST /moderation-actions", () => {
  it("records the action with the admin as actor, now, and queues its audit event", async () => {
    const target = await signUp();
    const boss = await admin();
    const res = await record(boss.token, target.uuid, {
      actorUuid: undefined,
      previousRole: ["user"],
      role: "user",
      details: { room: "lobby" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      actionType: "banUser",
      actorUuid: boss.uuid,
      targetUuid: target.uuid,
      previousRole: ["user"],
      role: "user",
      reason: "spam in room",
      details: { room: "lobby" },
    });
    expect(Date.now() - Date.parse(res.body.createdAt)).toBeLessThan(60_000);
    const event = await auditOf(res.body.uuid);
    expect(event).toMatchObject({
      topic: "moderation.banUser",
      actorUuid: boss.uuid,
      targetUuid: target.uuid,
    });
    expect(event.requestId).toEqual(expect.any(String));
  });

  it("refuses a body that names its own actor, an unknown type, a missing target or huge details", async () => {
    const target = await signUp();
    const token = (await admin()).token;
    const bad: [Record<string, unknown>, number][] = [
      [{ actorUuid: crypto.randomUUID() }, 400],
      [{ actionType: "eraseUser" }, 400],
      [{ targetUuid: "nobody" }, 400],
      [{ reason: "x".repeat(501) }, 400],
      [{ details: { blob: "x".repeat(3000) } }, 400],
      [{ targetUuid: crypto.randomUUID() }, 404],
    ];
    for (const [over, status] of bad) {
      const res = await record(token, target.uuid, over);
      expect(res.status, JSON.stringify(over).slice(0, 80)).toBe(status);
    }
    expect(await actionsOn(target.uuid)).toEqual([]);
  });
});

describe("POST /moderation-actions/bulk", () => {
  it(`records up to ${BULK_MAX} actions in one call, in order`, async () => {
    const a = await signUp();
    const b = await signUp();
    const bulk = Array.from({ length: BULK_MAX }, (_, i) => ({
      actionType: i % 2 ? "kickUser" : "banUser",
      targetUuid: i % 2 ? b.uuid : a.uuid,
      reason: `reason ${i}`,
    }));
    const res = await auditApi("/moderation-actions/bulk", {
      token: (await admin()).token,
      body: { bulk },
    });
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(BULK_MAX);
    expect(res.body.map((r: { reason: string }) => r.reason)).toEqual(bulk.map((x) => x.reason));
    expect(await actionsOn(a.uuid)).toHaveLength(BULK_MAX / 2);
    expect(await actionsOn(b.uuid)).toHaveLength(BULK_MAX / 2);
  });

  it("refuses more than the bound, none at all, or any unknown target, writing nothing", async () => {
    const a = await signUp();
    const token = (await admin()).token;
    const one = { actionType: "banUser", targetUuid: a.uuid };
    const over = await auditApi("/moderation-actions/bulk", {
      token,
      body: { bulk: Array.from({ length: BULK_MAX + 1 }, () => one) },
    });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain(`at most ${BULK_MAX}`);
    expect((await auditApi("/moderation-actions/bulk", { token, body: { bulk: [] } })).status).toBe(
      400,
    );
    expect((await auditApi("/moderation-actions/bulk", { token, body: [one] })).status).toBe(400);
    const ghost = crypto.randomUUID();
    const mixed = await auditApi("/moderation-actions/bulk", {
      token,
      body: { bulk: [one, { actionType: "kickUser", targetUuid: ghost }] },
    });
    expect(mixed.status).toBe(404);
    expect(mixed.body.message).toContain(ghost);
    expect(await actionsOn(a.uuid)).toEqual([]);
  });
});

describe("GET /moderation-actions (crud query language)", () => {
  it("filters by target, type and time, sorts, pages, and refuses unknown fields", async () => {
    const kim = await signUp();
    const token = (await admin()).token;
    for (const [actionType, reason] of [
      ["banUser", "one"],
      ["kickUser", "two"],
      ["banUser", "three"],
    ])
      await record(token, kim.uuid, { actionType, reason });
    const list = (q: string) =>
      auditApi(`/moderation-actions?filter=targetUuid||$eq||${kim.uuid}&${q}`, { token });
    const all = await list("");
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ count: 3, total: 3, page: 1, pageCount: 1 });
    expect(all.body.data.map((r: { reason: string }) => r.reason)).toEqual(["three", "two", "one"]);
    const bans = await list("filter=actionType||$eq||banUser&sort=id,ASC");
    expect(bans.body.data.map((r: { reason: string }) => r.reason)).toEqual(["one", "three"]);
    const cont = await list("filter=reason||$cont||hre");
    expect(cont.body.data.map((r: { reason: string }) => r.reason)).toEqual(["three"]);
    const paged = await list("limit=2&page=2");
    expect(paged.body).toMatchObject({ count: 1, total: 3, page: 2, pageCount: 2 });
    const since = Date.parse(all.body.data[0].createdAt);
    const recent = await list(`filter=createdAt||$gte||${since}`);
    expect(recent.body.data.map((r: { reason: string }) => r.reason)).toContain("three");
    expect(
      recent.body.data.every((r: { createdAt: string }) => Date.parse(r.createdAt) >= since),
    ).toBe(true);
    const unknown = await auditApi("/moderation-actions?filter=passwordHash||$eq||x", { token });
    expect(unknown.status).toBe(400);
    expect((await auditApi("/moderation-actions?limit=101", { token })).status).toBe(400);
  });
});

describe("GET/PATCH/PUT/DELETE /moderation-actions/{id}", () => {
  it("reads one by id or uuid, 404 for none", async () => {
    const kim = await signUp();
    const token = (await admin()).token;
    const { body: a } = await record(token, kim.uuid);
    expect((await auditApi(`/moderation-actions/${a.id}`, { token })).body).toEqual(a);
    expect((await auditApi(`/moderation-actions/${a.uuid}`, { token })).body).toEqual(a);
    const none = await auditApi(`/moderation-actions/${crypto.randomUUID()}`, { token });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe(MSG.actionNotFound);
  });

  it("PATCH and PUT change the reason only, and the old text stays in the audit trail", async () => {
    const kim = await signUp();
    const boss = await admin();
    const { body: a } = await record(boss.token, kim.uuid, { reason: "spam" });
    const patched = await auditApi(`/moderation-actions/${a.id}`, {
      token: boss.token,
      method: "PATCH",
      body: { reason: "spam links in chat" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...a, reason: "spam links in chat" });
    const put = await auditApi(`/moderation-actions/${a.id}`, {
      token: boss.token,
      method: "PUT",
      body: { reason: "spam links, third warning" },
    });
    expect(put.body.reason).toBe("spam links, third warning");
    const row = await db(env)
      .select()
      .from(moderationActions)
      .where(eq(moderationActions.id, a.id))
      .get();
    expect(row?.reason).toBe("spam links, third warning");
    await expect
      .poll(
        async () =>
          (
            await auditApi(`/audit-events?userUuid=${kim.uuid}&topic=moderation.reasonEdited`, {
              token: boss.token,
            })
          ).body.data.map((e: { data: { from: string; to: string } }) => [e.data.from, e.data.to]),
        { timeout: 5000, interval: 50 },
      )
      .toEqual([
        ["spam links in chat", "spam links, third warning"],
        ["spam", "spam links in chat"],
      ]);
  });

  it("PATCH or PUT of anything but the reason is a 400 that changes nothing", async () => {
    const kim = await signUp();
    const other = await signUp();
    const token = (await admin()).token;
    const { body: a } = await record(token, kim.uuid, { reason: "spam" });
    for (const [method, body] of [
      ["PATCH", { actionType: "kickUser" }],
      ["PATCH", { targetUuid: other.uuid, reason: "x" }],
      ["PUT", { createdAt: 0, reason: "x" }],
      ["PUT", {}], // PUT replaces the editable fields: reason is required
      ["PATCH", { reason: "x".repeat(501) }],
    ] as const) {
      const res = await auditApi(`/moderation-actions/${a.id}`, { token, method, body });
      expect(res.status, `${method} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
    }
    const res = await auditApi(`/moderation-actions/${a.id}`, {
      token,
      method: "PATCH",
      body: { actionType: "x" },
    });
    expect(JSON.stringify(res.body.message)).toContain("Only reason may be changed");
    expect((await auditApi(`/moderation-actions/${a.id}`, { token })).body).toEqual(a);
  });

  it("two admins editing at once never both log a change from the same text", async () => {
    const kim = await signUp();
    const token = (await admin()).token;
    const other = (await admin()).token;
    const { body: a } = await record(token, kim.uuid, { reason: "spam" });
    const results = await Promise.all(
      ["first edit", "second edit", "third edit"].map((reason, i) =>
        auditApi(`/moderation-actions/${a.id}`, {
          token: i % 2 ? other : token,
          method: "PATCH",
          body: { reason },
        }),
      ),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const landed = results.filter((r) => r.status === 200).length;
    expect(landed).toBeGreaterThan(0);
    const final = (await auditApi(`/moderation-actions/${a.id}`, { token })).body.reason;
    // The edit events chain: each starts from the text the one before left, ending at the row's.
    const chain = await vi.waitFor(
      async () => {
        const res = await auditApi(
          `/audit-events?userUuid=${kim.uuid}&topic=moderation.reasonEdited`,
          { token },
        );
        if (res.body.total < landed) throw new Error("waiting for the queue");
        return res.body.data as { data: { from: string; to: string } }[];
      },
      { timeout: 5000, interval: 50 },
    );
    // Followed by text, not by time (the events may reach the queue in either order): every
    // edit starts where another ended, from "spam" to the row's reason, none left over.
    const next = new Map(chain.map((e) => [e.data.from, e.data.to]));
    expect(next.size).toBe(landed);
    let text = "spam";
    for (let i = 0; i < landed; i++) text = next.get(text)!;
    expect(text).toBe(final);
  });

  it("DELETE is refused (405) and the action stays; an unknown id is a 404", async () => {
    const kim = await signUp();
    const token = (await admin()).token;
    const { body: a } = await record(token, kim.uuid);
    const res = await auditApi(`/moderation-actions/${a.id}`, { token, method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, PATCH, PUT");
    expect(res.body.message).toBe(MSG.deleteRefused);
    expect(await actionsOn(kim.uuid)).toHaveLength(1);
    expect(
      (await auditApi("/moderation-actions/99999999", { token, method: "DELETE" })).status,
    ).toBe(404);
  });
});

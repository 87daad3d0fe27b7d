import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { eq, like } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import worker from "../workers/app";
import { CLIENT_ACTIONS, STATEFUL_MESSAGE_NAMES } from "../shared/protocol";
import { db } from "../workers/db/client";
import { auditEvents, errorReports } from "../workers/db/schema";
import { MSG } from "../workers/audit-service/messages";
import { AUDIT_RETENTION_DAYS, purgeExpiredAuditEvents } from "../workers/audit-service/retention";
import { admin, signUp, user } from "./helpers";
import { gmod, login, mod } from "./moderation-helpers";
import { auditApi, storeEvents } from "./audit-helpers";

// The audit trail end to end: a moderation session's events, the per-user action log,
// the reference names, retention, and the error-reporting test route.

const DAY = 86_400_000;

/** A moderator bans then unbans `kim` through the user-service, each with a reason. */
async function banAndUnban() {
  const moderator = await mod();
  const kim = await signUp();
  const ban = await user("/users/ban", {
    token: moderator.token,
    body: { userUuid: kim.uuid, reason: "hate speech in chat" },
  });
  expect(ban.status).toBe(201);
  const unban = await user("/users/unban", {
    token: moderator.token,
    body: { userUuid: kim.uuid, reason: "appeal accepted" },
  });
  expect(unban.status).toBe(201);
  return { moderator, kim };
}

describe("a moderation session's audit trail", () => {
  it("a ban then an unban both appear on the audit page with actor, target and reason", async () => {
    const { moderator, kim } = await banAndUnban();
    const boss = await admin();
    const events = await vi.waitFor(
      async () => {
        const res = await auditApi(`/audit-events?userUuid=${kim.uuid}&topic=moderation.`, {
          token: boss.token,
        });
        if (res.body.total < 2) throw new Error("waiting for the queue");
        return res.body.data;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      topic: "moderation.globalUnBan",
      actorUuid: moderator.uuid,
      targetUuid: kim.uuid,
      data: { reason: "appeal accepted", details: { lifted: "hate speech in chat" } },
    });
    expect(events[1]).toMatchObject({
      topic: "moderation.globalBan",
      actorUuid: moderator.uuid,
      targetUuid: kim.uuid,
      data: { reason: "hate speech in chat" },
    });
    expect(events[0].requestId).not.toBe(events[1].requestId);
    // The moderator's own history lists them too (as actor).
    const mine = await auditApi(`/audit-events?userUuid=${moderator.uuid}&topic=moderation.`, {
      token: boss.token,
    });
    expect(mine.body.total).toBe(2);
  });
});

describe("GET /user-actions/{id}", () => {
  it("the person reads the actions on them, without who acted; moderators see who", async () => {
    const { moderator, kim } = await banAndUnban();
    // The ban ended kim's sessions: she signs in again after the unban.
    const signedIn = await login(kim);
    expect(signedIn.status).toBe(200);
    const own = await auditApi(`/user-actions/${kim.uuid}`, { token: signedIn.body.token });
    expect(own.status).toBe(200);
    expect(own.body.total).toBe(2);
    expect(own.body.data.map((a: { actionType: string }) => a.actionType)).toEqual([
      "globalUnBan",
      "globalBan",
    ]);
    expect(own.body.data[1]).toMatchObject({ reason: "hate speech in chat", actorUuid: null });
    for (const reader of [moderator, await gmod(), await admin()]) {
      const res = await auditApi(`/user-actions/${kim.uuid}`, { token: reader.token });
      expect(res.status).toBe(200);
      expect(res.body.data[1].actorUuid).toBe(moderator.uuid);
    }
    const paged = await auditApi(`/user-actions/${kim.uuid}?take=1&skip=1`, {
      token: signedIn.body.token,
    });
    expect(paged.body).toMatchObject({ total: 2, skip: 1, take: 1 });
    expect(paged.body.data.map((a: { actionType: string }) => a.actionType)).toEqual(["globalBan"]);
  });

  it("anyone else gets the spec's 'Unauthorized to perform action.'; no token 401", async () => {
    const { kim } = await banAndUnban();
    const nosy = await signUp();
    const res = await auditApi(`/user-actions/${kim.uuid}`, { token: nosy.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.userActionsRefused);
    expect(MSG.userActionsRefused).toBe("Unauthorized to perform action.");
    expect((await auditApi(`/user-actions/${kim.uuid}`)).status).toBe(401);
  });

  it("bad input: a non-uuid id or take over 100 is a 400; a moderator asking for nobody a 404", async () => {
    const moderator = await mod();
    expect((await auditApi("/user-actions/kim", { token: moderator.token })).status).toBe(400);
    const kim = await signUp();
    const take = await auditApi(`/user-actions/${kim.uuid}?take=101`, { token: kim.token });
    expect(take.status).toBe(400);
    const nobody = await auditApi(`/user-actions/${crypto.randomUUID()}`, {
      token: moderator.token,
    });
    expect(nobody.status).toBe(404);
    // A person with no actions on them reads an empty list.
    expect((await auditApi(`/user-actions/${kim.uuid}`, { token: kim.token })).body).toEqual({
      data: [],
      total: 0,
      skip: 0,
      take: 50,
    });
  });
});

describe("GET /info-admin/*", () => {
  it("socket-events-names lists the room protocol's client actions and server messages", async () => {
    const res = await auditApi("/info-admin/socket-events-names", { token: (await admin()).token });
    expect(res.status).toBe(200);
    expect(res.body.client).toEqual([...CLIENT_ACTIONS]);
    expect(res.body.client).toEqual(expect.arrayContaining(["sendChat", "kickUser", "voteOnSong"]));
    expect(res.body.server).toEqual(
      expect.arrayContaining(["roomState", ...STATEFUL_MESSAGE_NAMES, "kickedFromRoom", "pong"]),
    );
  });

  it("event-last answers the newest event involving the user, 404 when none", async () => {
    const { kim } = await banAndUnban();
    const token = (await admin()).token;
    const last = await vi.waitFor(
      async () => {
        const res = await auditApi(`/info-admin/event-last/${kim.uuid}`, { token });
        if (res.body.topic !== "moderation.globalUnBan") throw new Error("waiting for the queue");
        return res;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(last.body).toMatchObject({ targetUuid: kim.uuid, data: { reason: "appeal accepted" } });
    const none = await auditApi(`/info-admin/event-last/${crypto.randomUUID()}`, { token });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe(MSG.noEventYet);
  });

  it("401 without a token and 403 for a plain user on every info-admin call", async () => {
    const plain = await signUp();
    for (const path of [
      "/info-admin/socket-events-names",
      "/info-admin/user-events-names",
      `/info-admin/event-last/${plain.uuid}`,
    ]) {
      expect((await auditApi(path)).status, path).toBe(401);
      expect((await auditApi(path, { token: plain.token })).status, path).toBe(403);
    }
  });
});

describe("retention", () => {
  const old = (now: number) => now - (AUDIT_RETENTION_DAYS + 1) * DAY;

  it("purges events past the retention in bounded batches, keeping moderation events and recent ones", async () => {
    const now = Date.now();
    const p = `r${crypto.randomUUID().slice(0, 8)}`;
    await storeEvents([
      ...Array.from({ length: 5 }, (_, i) => ({ topic: `${p}.old`, occurredAt: old(now) - i })),
      { topic: "moderation.globalBan", userUuid: p, occurredAt: old(now) },
      { topic: `${p}.edge`, occurredAt: now - AUDIT_RETENTION_DAYS * DAY + 60_000 },
      { topic: `${p}.new`, occurredAt: now },
    ]);
    const left = async () =>
      (
        await db(env)
          .select({ topic: auditEvents.topic })
          .from(auditEvents)
          .where(like(auditEvents.topic, `${p}.%`))
          .all()
      ).map((r) => r.topic);
    // Two batches of two: four go, the fifth waits for the next run.
    expect(await purgeExpiredAuditEvents(env, now, { batchSize: 2, maxBatches: 2 })).toBe(4);
    expect((await left()).filter((t) => t.endsWith(".old"))).toHaveLength(1);
    expect(await purgeExpiredAuditEvents(env, now, { batchSize: 2, maxBatches: 2 })).toBe(1);
    expect((await left()).sort()).toEqual([`${p}.edge`, `${p}.new`]);
    const kept = await db(env).select().from(auditEvents).where(eq(auditEvents.userUuid, p)).all();
    expect(kept).toHaveLength(1);
    expect(await purgeExpiredAuditEvents(env, now)).toBe(0);
  });

  it("the every-minute cron runs the purge", async () => {
    const p = `c${crypto.randomUUID().slice(0, 8)}`;
    await storeEvents([
      { topic: `${p}.old`, occurredAt: old(Date.now()) },
      { topic: `${p}.new`, occurredAt: Date.now() },
    ]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const rows = await db(env)
      .select({ topic: auditEvents.topic })
      .from(auditEvents)
      .where(like(auditEvents.topic, `${p}.%`))
      .all();
    expect(rows.map((r) => r.topic)).toEqual([`${p}.new`]);
  });
});

describe("POST /sentry-testing", () => {
  it("records a test error under the audit-service for an admin; 403 user, 401 nobody", async () => {
    const boss = await admin();
    const res = await auditApi("/sentry-testing", { token: boss.token, method: "POST" });
    expect(res.status).toBe(500);
    const row = await vi.waitFor(
      async () => {
        const r = await db(env)
          .select()
          .from(errorReports)
          .where(eq(errorReports.userUuid, boss.uuid))
          .get();
        if (!r) throw new Error("not recorded yet");
        return r;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(row).toMatchObject({
      service: "audit-service",
      path: "POST /api/audit-service/sentry-testing",
      message: "SentryTestError: Sentry test error raised on purpose.",
    });
    const plain = await signUp();
    expect((await auditApi("/sentry-testing", { token: plain.token, method: "POST" })).status).toBe(
      403,
    );
    expect((await auditApi("/sentry-testing", { method: "POST" })).status).toBe(401);
  });
});

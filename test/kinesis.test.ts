import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../workers/app";
import { PLAY_15_SECONDS, PLAY_RECORD, PLAY_TOPICS, PLAY_TOTAL } from "../shared/play-tracking";
import { AUDIT_TOPICS } from "../workers/queues/audit-topics";
import { accountWithRoles, admin, call, forgedToken, guestToken, signUp } from "./helpers";

const audit = (path: string, init?: Parameters<typeof call>[2]) =>
  call("audit-service", path, init);

/** A valid play record as the web player sends it. */
function record(over: Record<string, unknown> = {}) {
  const started = new Date(Date.now() - 15_000).toISOString();
  return {
    userUuid: null,
    roomSlug: null,
    roomOwnerUuid: null,
    djUuid: null,
    songInfo: { songId: crypto.randomUUID(), trackName: "Song" },
    startedDate: started,
    updatedDate: new Date().toISOString(),
    volumeStart: 1,
    volumeEnd: 0.5,
    playId: crypto.randomUUID(),
    sent15sec: true,
    sent30sec: false,
    userProvider: "uploadService",
    subscriptionLevel: null,
    deviceData: { platform: "web", isDiscord: false, isLoggedIn: true },
    ...over,
  };
}

interface Row {
  event_id: string;
  topic: string;
  user_uuid: string | null;
  data: string;
}
/** Rows stored as `eventId`, or under it (`topic:playId` finds `topic:playId:<listener>`). */
const rowsFor = (eventId: string) =>
  env.DB.prepare(
    "select event_id, topic, user_uuid, data from audit_events where event_id = ?1 or substr(event_id, 1, length(?1) + 1) = ?1 || ':' order by event_id",
  )
    .bind(eventId)
    .all<Row>()
    .then((r) => r.results);

/** Waits until the queue consumer has stored `eventId`, and returns its rows. */
const stored = (eventId: string) =>
  vi.waitFor(
    async () => {
      const rows = await rowsFor(eventId);
      if (!rows.length) throw new Error(`waiting for ${eventId}`);
      return rows;
    },
    { timeout: 5000, interval: 50 },
  );

describe("POST /kinesis", () => {
  it("accepts a play event (202) and the audit queue stores it under topic:playId", async () => {
    const a = await signUp();
    const body = { topic: PLAY_15_SECONDS, kinesisDataRecord: record() };
    const res = await audit("/kinesis", { token: a.token, body });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true });
    const [row] = await stored(`${PLAY_15_SECONDS}:${body.kinesisDataRecord.playId}`);
    expect(row).toMatchObject({ topic: PLAY_15_SECONDS, user_uuid: a.uuid });
    const data = JSON.parse(row.data);
    expect(data).toMatchObject({
      playId: body.kinesisDataRecord.playId,
      songInfo: body.kinesisDataRecord.songInfo,
      userUuid: a.uuid,
      sent15sec: true,
    });
    expect(data.deviceData).toEqual({ platform: "web", isDiscord: false, isLoggedIn: true });
  });

  it("accepts a guest's token; login status comes from the token, not the body", async () => {
    const kinesisDataRecord = record({
      deviceData: { platform: "android", isDiscord: true, isLoggedIn: true },
    });
    const res = await audit("/kinesis", {
      token: await guestToken(),
      body: { topic: PLAY_TOTAL, kinesisDataRecord },
    });
    expect(res.status).toBe(202);
    const [row] = await stored(`${PLAY_TOTAL}:${kinesisDataRecord.playId}`);
    expect(JSON.parse(row.data).deviceData).toEqual({
      platform: "android",
      isDiscord: true,
      isLoggedIn: false,
    });
  });

  it("stores the caller's uuid even when the body claims another user", async () => {
    const [a, victim] = await Promise.all([signUp(), signUp()]);
    const kinesisDataRecord = record({ userUuid: victim.uuid });
    expect(
      (await audit("/kinesis", { token: a.token, body: { topic: PLAY_RECORD, kinesisDataRecord } }))
        .status,
    ).toBe(202);
    const [row] = await stored(`${PLAY_RECORD}:${kinesisDataRecord.playId}`);
    expect(row.user_uuid).toBe(a.uuid);
    expect(JSON.parse(row.data).userUuid).toBe(a.uuid);
  });

  it("a play in a room carries the room's slug, owner, DJ and playId; two listeners of one play are stored apart", async () => {
    const [a, b, owner, dj] = await Promise.all([signUp(), signUp(), signUp(), signUp()]);
    // What the room page's player sends (app/hooks/usePlayTracking.ts, roomPlayContext): the room object's playId.
    const roomPlayId = crypto.randomUUID();
    const room = {
      roomSlug: "the-club",
      roomOwnerUuid: owner.uuid,
      djUuid: dj.uuid,
      playId: roomPlayId,
    };
    for (const who of [a, b]) {
      expect(
        (
          await audit("/kinesis", {
            token: who.token,
            body: { topic: PLAY_15_SECONDS, kinesisDataRecord: record(room) },
          })
        ).status,
      ).toBe(202);
    }
    const rows = await vi.waitFor(
      async () => {
        const r = await rowsFor(`${PLAY_15_SECONDS}:${roomPlayId}`);
        if (r.length < 2) throw new Error("waiting for both listeners");
        return r;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(rows.map((r) => r.user_uuid).sort()).toEqual([a.uuid, b.uuid].sort());
    for (const row of rows)
      expect(JSON.parse(row.data)).toMatchObject({ ...room, userUuid: row.user_uuid });
    // A retry of one listener's event is still stored once.
    await audit("/kinesis", {
      token: a.token,
      body: { topic: PLAY_15_SECONDS, kinesisDataRecord: record(room) },
    });
    const later = record();
    await audit("/kinesis", {
      token: a.token,
      body: { topic: PLAY_RECORD, kinesisDataRecord: later },
    });
    await stored(`${PLAY_RECORD}:${later.playId}`);
    expect(await rowsFor(`${PLAY_15_SECONDS}:${roomPlayId}`)).toHaveLength(2);
  });

  it("stores a retried POST once", async () => {
    const a = await signUp();
    const body = { topic: PLAY_RECORD, kinesisDataRecord: record() };
    for (let i = 0; i < 2; i++)
      expect((await audit("/kinesis", { token: a.token, body })).status).toBe(202);
    // A later event from the same client: once it is stored, both retries have been consumed.
    const later = record();
    await audit("/kinesis", {
      token: a.token,
      body: { topic: PLAY_RECORD, kinesisDataRecord: later },
    });
    await stored(`${PLAY_RECORD}:${later.playId}`);
    expect(await stored(`${PLAY_RECORD}:${body.kinesisDataRecord.playId}`)).toHaveLength(1);
  });

  it("stores a redelivered queue batch once", async () => {
    const a = await signUp();
    const kinesisDataRecord = record();
    await audit("/kinesis", { token: a.token, body: { topic: PLAY_TOTAL, kinesisDataRecord } });
    const eventId = `${PLAY_TOTAL}:${kinesisDataRecord.playId}:${a.uuid}`;
    await stored(eventId);
    // The message the route queued, delivered again (at-least-once delivery).
    const body = {
      eventId,
      topic: PLAY_TOTAL,
      userUuid: a.uuid,
      data: { ...kinesisDataRecord, userUuid: a.uuid },
      occurredAt: Date.now(),
    };
    for (let delivery = 0; delivery < 2; delivery++) {
      const batch = createMessageBatch("hangout-audit", [
        { id: `k${delivery}`, timestamp: new Date(), attempts: delivery + 1, body },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    }
    expect(await rowsFor(eventId)).toHaveLength(1);
  });

  const bad: [string, unknown][] = [
    ["an unknown topic", { topic: "play-60-seconds", kinesisDataRecord: record() }],
    ["no topic", { kinesisDataRecord: record() }],
    ["no record", { topic: PLAY_TOTAL }],
    [
      "a playId that is not a uuid",
      { topic: PLAY_TOTAL, kinesisDataRecord: record({ playId: "nope" }) },
    ],
    [
      "a song without songId",
      { topic: PLAY_TOTAL, kinesisDataRecord: record({ songInfo: { trackName: "x" } }) },
    ],
    [
      "an unknown platform",
      {
        topic: PLAY_TOTAL,
        kinesisDataRecord: record({
          deviceData: { platform: "tv", isDiscord: false, isLoggedIn: true },
        }),
      },
    ],
    ["no deviceData", { topic: PLAY_TOTAL, kinesisDataRecord: record({ deviceData: undefined }) }],
    [
      "a date that is not ISO",
      { topic: PLAY_TOTAL, kinesisDataRecord: record({ startedDate: "yesterday" }) },
    ],
    [
      "updatedDate before startedDate",
      { topic: PLAY_TOTAL, kinesisDataRecord: record({ updatedDate: "2000-01-01T00:00:00.000Z" }) },
    ],
    ["a negative volume", { topic: PLAY_TOTAL, kinesisDataRecord: record({ volumeEnd: -1 }) }],
    [
      "flags that are not booleans",
      { topic: PLAY_TOTAL, kinesisDataRecord: record({ sent15sec: "yes" }) },
    ],
    [
      "songInfo over 4 KB",
      {
        topic: PLAY_TOTAL,
        kinesisDataRecord: record({ songInfo: { songId: "s", notes: "x".repeat(4100) } }),
      },
    ],
    ["a body that is not an object", [1, 2, 3]],
    ["malformed JSON", "{not json"],
  ];
  for (const [name, body] of bad) {
    it(`400 for ${name}`, async () => {
      const a = await signUp();
      const res = await audit("/kinesis", { token: a.token, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    });
  }

  it("names the field when songInfo is too large", async () => {
    const a = await signUp();
    const res = await audit("/kinesis", {
      token: a.token,
      body: {
        topic: PLAY_TOTAL,
        kinesisDataRecord: record({ songInfo: { songId: "s", notes: "x".repeat(4100) } }),
      },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toContain("songInfo must be at most 4096 bytes");
  });

  it("accepts dates with a UTC offset (native clients)", async () => {
    const a = await signUp();
    const kinesisDataRecord = record({
      startedDate: "2025-01-01T12:00:00+02:00",
      updatedDate: "2025-01-01T12:00:30+02:00",
    });
    expect(
      (await audit("/kinesis", { token: a.token, body: { topic: PLAY_RECORD, kinesisDataRecord } }))
        .status,
    ).toBe(202);
  });

  it("413 for a body far over the cap (refused before parsing)", async () => {
    const a = await signUp();
    const res = await audit("/kinesis", {
      token: a.token,
      body: {
        topic: PLAY_TOTAL,
        kinesisDataRecord: record({ songInfo: { songId: "s", notes: "x".repeat(40_000) } }),
      },
    });
    expect(res.status).toBe(413);
  });

  it("401 without a token, and with a forged one", async () => {
    const body = { topic: PLAY_TOTAL, kinesisDataRecord: record() };
    expect((await audit("/kinesis", { body })).status).toBe(401);
    expect(
      (await audit("/kinesis", { body, token: await forgedToken(await signUp()) })).status,
    ).toBe(401);
  });
});

describe("GET /info-admin/user-events-names", () => {
  it("lists every audit topic for an admin, the play topics among them", async () => {
    const res = await audit("/info-admin/user-events-names", { token: (await admin()).token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([...AUDIT_TOPICS]);
    expect(res.body).toEqual(expect.arrayContaining([...PLAY_TOPICS]));
  });

  it("403 for a plain user, 401 without a token", async () => {
    const plain = await accountWithRoles(["user"]);
    expect((await audit("/info-admin/user-events-names", { token: plain.token })).status).toBe(403);
    expect((await audit("/info-admin/user-events-names")).status).toBe(401);
  });
});

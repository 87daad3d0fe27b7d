import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NOTIFY_LIMITS } from "../shared/notifications";
import { inQuietHours } from "../workers/queues/notify-rules";
import {
  notifyUsers,
  type NotifyInput,
  type UsersMessage,
} from "../workers/queues/user-notifications";
import { signUp, type TestAccount } from "./helpers";
import { browser, consume, recordingQueue, rowsOf, social, stubFetch } from "./notify-helpers";

/**
 * The consumer's rules per recipient: kinds turned off, quiet hours, the throttle, one
 * in-app row and one push per (message, recipient) however often or concurrently it is
 * delivered, the bounded centre, and the fan-out through the queue.
 */
afterEach(() => vi.restoreAllMocks());

const base: NotifyInput = { kind: "dj_live", title: "sam is DJing", body: "in Lounge" };

/** An account with one browser subscribed (so each push is one fetch to count). */
async function listener(): Promise<TestAccount> {
  const a = await signUp();
  const b = await browser();
  expect(
    (await social("/web-notifications/subscription", { token: a.token, body: b.subscription }))
      .status,
  ).toBe(201);
  return a;
}

async function queued(users: string[], n: Partial<NotifyInput> = {}): Promise<UsersMessage[]> {
  const q = recordingQueue();
  await notifyUsers(q.env, users, { ...base, ...n });
  return q.messages();
}

const settings = (a: TestAccount, body: unknown) =>
  social("/notification-settings", { method: "PUT", token: a.token, body });

describe("settings", () => {
  it("a kind turned off writes nothing and pushes nothing; other kinds still arrive", async () => {
    const a = await listener();
    expect((await settings(a, { disabledKinds: ["dj_live"] })).status).toBe(200);
    const seen = stubFetch();
    await consume(await queued([a.uuid]));
    expect(await rowsOf(a.uuid)).toEqual([]);
    expect(seen).toHaveLength(0);
    await consume(await queued([a.uuid], { kind: "mention", title: "@you" }));
    expect((await rowsOf(a.uuid)).map((r) => r.kind)).toEqual(["mention"]);
    expect(seen).toHaveLength(1);
  });

  const minuteNow = (zone?: string) => {
    if (!zone) return Math.floor(Date.now() / 60_000) % 1440;
    const p = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(new Date());
    return (
      Number(p.find((x) => x.type === "hour")!.value) * 60 +
      Number(p.find((x) => x.type === "minute")!.value)
    );
  };
  const around = (m: number) => ({ start: (m + 1430) % 1440, end: (m + 30) % 1440 });

  it("quiet hours (fixed offset) hold the push back but still write the in-app row", async () => {
    const a = await listener();
    // Now, at UTC-5, is inside [start, end).
    const local = (minuteNow() - 300 + 1440) % 1440;
    expect(
      (await settings(a, { quietHours: { ...around(local), utcOffsetMinutes: -300 } })).status,
    ).toBe(200);
    const seen = stubFetch();
    await consume(await queued([a.uuid]));
    expect(seen).toHaveLength(0);
    const [row] = await rowsOf(a.uuid);
    expect(row.title).toBe("sam is DJing");
    expect(row.pushed_at).not.toBeNull();
  });

  it("quiet hours by IANA zone; outside them the push goes", async () => {
    const a = await listener();
    const zone = "Asia/Kathmandu"; // +05:45, so a fixed-offset or UTC reading would be wrong
    const seen = stubFetch();
    await settings(a, { quietHours: { ...around(minuteNow(zone)), timeZone: zone } });
    await consume(await queued([a.uuid]));
    expect(seen).toHaveLength(0);
    // Quiet hours elsewhere in the day: the push goes.
    const m = (minuteNow(zone) + 720) % 1440;
    await settings(a, { quietHours: { start: m, end: (m + 60) % 1440, timeZone: zone } });
    await consume(await queued([a.uuid], { title: "second" }));
    expect(seen).toHaveLength(1);
    expect(await rowsOf(a.uuid)).toHaveLength(2);
  });

  it("quiet hours wrap past midnight: [23:00, 07:00) holds 23:30 and 03:00, not 07:00 or noon", () => {
    const row = {
      userUuid: "u",
      disabledKinds: "[]",
      quietStart: 23 * 60,
      quietEnd: 7 * 60,
      timeZone: null,
      utcOffsetMinutes: 0,
      updatedAt: 0,
    };
    const at = (h: number, m = 0) => Date.UTC(2026, 0, 15, h, m);
    expect([at(23, 30), at(3), at(6, 59), at(7), at(12)].map((t) => inQuietHours(row, t))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    // The same hours in Madrid (UTC+1 in January): 22:30 UTC is 23:30 there.
    const madrid = { ...row, timeZone: "Europe/Madrid", utcOffsetMinutes: null };
    expect([at(22, 30), at(6, 30), at(22)].map((t) => inQuietHours(madrid, t))).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("a silent push is not held by quiet hours and never shows in the centre", async () => {
    const a = await listener();
    await settings(a, { quietHours: { ...around(minuteNow()), utcOffsetMinutes: 0 } });
    const seen = stubFetch();
    await consume(
      await queued([a.uuid], {
        kind: "custom",
        silent: true,
        title: "",
        body: "",
        data: { sync: 1 },
      }),
    );
    expect(seen).toHaveLength(1);
    expect((await social("/notifications", { token: a.token })).body).toMatchObject({
      items: [],
      unreadCount: 0,
    });
  });
});

describe("throttle", () => {
  const dj = () => `dj_live:${crypto.randomUUID()}`;

  it("the same key twice within the window notifies once; another key or another fan is not held", async () => {
    const [a, b] = [await listener(), await listener()];
    const key = dj();
    const seen = stubFetch();
    await consume(await queued([a.uuid], { throttleKey: key }));
    await consume(await queued([a.uuid, b.uuid], { throttleKey: key }));
    await consume(await queued([a.uuid], { throttleKey: dj(), title: "other dj" }));
    expect((await rowsOf(a.uuid)).map((r) => r.title)).toEqual(["other dj", "sam is DJing"]);
    expect(await rowsOf(b.uuid)).toHaveLength(1);
    expect(seen).toHaveLength(3);
  });

  it("holds when two messages with the key are delivered at the same time", async () => {
    const a = await listener();
    const key = dj();
    const seen = stubFetch();
    const msgs = [
      ...(await queued([a.uuid], { throttleKey: key })),
      ...(await queued([a.uuid], { throttleKey: key })),
    ];
    await Promise.all(msgs.map((m) => consume([m])));
    expect(await rowsOf(a.uuid)).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it("lets the key through again once the window has passed", async () => {
    const a = await listener();
    const key = dj();
    stubFetch();
    await consume(await queued([a.uuid], { throttleKey: key }));
    await env.DB.prepare("update notify_throttle set until = ? where key = ?")
      .bind(Date.now() - 1, `${key}|${a.uuid}`)
      .run();
    await consume(await queued([a.uuid], { throttleKey: key }));
    expect(await rowsOf(a.uuid)).toHaveLength(2);
  });

  it("a redelivery of the message that took the key is not held by it", async () => {
    const a = await listener();
    const [m] = await queued([a.uuid], { throttleKey: dj() });
    // The first delivery took the key and then failed before writing (D1 row removed).
    stubFetch();
    await consume([m]);
    await env.DB.prepare("delete from notifications where message_id = ?").bind(m.id).run();
    await consume([m], {}, 2);
    expect(await rowsOf(a.uuid)).toHaveLength(1);
  });
});

describe("redelivery", () => {
  it("a message delivered again writes one in-app row and pushes once", async () => {
    const a = await listener();
    const seen = stubFetch();
    const msgs = await queued([a.uuid]);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const r = await consume(msgs, {}, attempt);
      expect(r.acked).toEqual(r.ids);
    }
    expect(await rowsOf(a.uuid)).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it("the same message delivered concurrently writes one row and pushes once", async () => {
    const a = await listener();
    const seen = stubFetch();
    const msgs = await queued([a.uuid]);
    await Promise.all([consume(msgs), consume(msgs), consume(msgs)]);
    expect(await rowsOf(a.uuid)).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it("a malformed message is dropped, not retried forever", async () => {
    const r = await consume([{ channel: "users", id: "x", recipients: [], kind: "nope" }]);
    expect(r.acked).toEqual(r.ids);
  });
});

describe("the centre stays bounded", () => {
  it(`keeps the newest ${NOTIFY_LIMITS.keepPerUser} rows per user`, async () => {
    const a = await signUp();
    const stmt = env.DB.prepare(
      "insert into notifications (uuid, user_uuid, message_id, kind, title, body, created_at) values (?, ?, ?, 'custom', ?, 'b', ?)",
    );
    await env.DB.batch(
      Array.from({ length: NOTIFY_LIMITS.keepPerUser + 5 }, (_, i) =>
        stmt.bind(
          crypto.randomUUID(),
          a.uuid,
          crypto.randomUUID(),
          `old ${i}`,
          Date.now() - 100_000 + i,
        ),
      ),
    );
    await consume(await queued([a.uuid], { title: "newest" }));
    const rows = await rowsOf(a.uuid);
    expect(rows).toHaveLength(NOTIFY_LIMITS.keepPerUser);
    expect(rows[0].title).toBe("newest");
    expect(rows.map((r) => r.title)).not.toContain("old 5");
    expect(rows.map((r) => r.title)).toContain("old 6");
  });
});

describe("fan-out through the queue", () => {
  it("1,000 recipients: 10 messages in one sendBatch, and each recipient gets exactly one row", async () => {
    const fans = Array.from({ length: 1000 }, () => crypto.randomUUID());
    const q = recordingQueue();
    const r = await notifyUsers(q.env, [...fans, ...fans.slice(0, 50)], {
      ...base,
      throttleKey: `dj_live:${crypto.randomUUID()}`,
    });
    expect(r).toEqual({ recipients: 1000, messages: 10 });
    expect(q.calls.map((c) => c.length)).toEqual([10]);
    const msgs = q.messages();
    // Consumed as the queue would (batches of 10, wrangler.toml), one batch delivered twice.
    await consume(msgs.slice(0, 5));
    await consume(msgs.slice(5));
    await consume(msgs.slice(0, 5), {}, 2);
    const { results } = await env.DB.prepare(
      `select user_uuid, count(*) as n from notifications where message_id in (select value from json_each(?)) group by user_uuid`,
    )
      .bind(JSON.stringify(msgs.map((m) => m.id)))
      .all<{ user_uuid: string; n: number }>();
    expect(results).toHaveLength(1000);
    expect(results.every((x) => x.n === 1)).toBe(true);
    expect(new Set(results.map((x) => x.user_uuid))).toEqual(new Set(fans));
  });

  it("100,000 fans are 1,000 messages, sent in batches within the queue's limits (100 messages, 256 KB)", async () => {
    const fans = Array.from({ length: 100_000 }, () => crypto.randomUUID());
    const q = recordingQueue();
    const r = await notifyUsers(q.env, fans, { ...base, body: "x".repeat(NOTIFY_LIMITS.body) });
    expect(r).toEqual({ recipients: 100_000, messages: 1000 });
    for (const call of q.calls) {
      expect(call.length).toBeLessThanOrEqual(100);
      expect(JSON.stringify(call).length).toBeLessThan(256_000);
    }
    expect(new Set(q.messages().flatMap((m) => m.recipients)).size).toBe(100_000);
  });

  it("notifyUsers refuses bad options before queueing anything", async () => {
    const q = recordingQueue();
    await expect(
      notifyUsers(q.env, [crypto.randomUUID()], {
        ...base,
        title: "x".repeat(NOTIFY_LIMITS.title + 1),
      }),
    ).rejects.toThrow();
    await expect(
      notifyUsers(q.env, [crypto.randomUUID()], {
        ...base,
        data: { big: "x".repeat(NOTIFY_LIMITS.dataBytes) },
      }),
    ).rejects.toThrow();
    expect(q.calls).toEqual([]);
  });
});

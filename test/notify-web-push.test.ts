import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NOTIFY_LIMITS } from "../shared/notifications";
import { notifyUsers } from "../workers/queues/user-notifications";
import { NOTIFY_MSG } from "../workers/social-service/notify-messages";
import { admin, signUp } from "./helpers";
import {
  browser,
  consume,
  decryptPush,
  recordingQueue,
  rowsOf,
  SERVICE,
  social,
  stubFetch,
  verifyVapid,
  type Captured,
} from "./notify-helpers";

afterEach(() => vi.restoreAllMocks());

const subscribe = async (token: string, sub: unknown) =>
  social("/web-notifications/subscription", { token, body: sub });

async function subsOf(userUuid: string) {
  const { results } = await env.DB.prepare(
    "select endpoint from web_push_subscriptions where user_uuid = ? order by created_at",
  )
    .bind(userUuid)
    .all<{ endpoint: string }>();
  return results.map((r) => r.endpoint);
}

/** Queues one notification to `userUuid` and consumes it here, with fetch stubbed. */
async function deliver(userUuid: string, answer?: (c: Captured) => Response) {
  const seen = stubFetch(answer);
  const q = recordingQueue();
  await notifyUsers(q.env, [userUuid], {
    kind: "mention",
    title: "kim mentioned you",
    body: "in Lounge: @lou are you there? ñ ✓",
    data: { roomSlug: "lounge" },
  });
  const r = await consume(q.messages());
  return { seen, ...r };
}

describe("web push: the subscription", () => {
  it("stores a browser's PushSubscription for the caller", async () => {
    const a = await signUp();
    const b = await browser();
    const res = await subscribe(a.token, b.subscription);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ subscribed: true, subscriptions: 1 });
    expect(await subsOf(a.uuid)).toEqual([b.subscription.endpoint]);
  });

  it("needs a signed-in account", async () => {
    const b = await browser();
    expect((await social("/web-notifications/subscription", { body: b.subscription })).status).toBe(
      401,
    );
  });

  it("refuses an endpoint that is not https on a public host, and keys of the wrong size, changing nothing", async () => {
    const a = await signUp();
    const b = await browser();
    const bad: [unknown, string][] = [
      [{ ...b.subscription, endpoint: "http://push.example.com/x" }, NOTIFY_MSG.endpointNotHttps],
      [{ ...b.subscription, endpoint: "https://127.0.0.1/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://localhost/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://localhost./x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://0x7f.1/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://[::1]/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://push.example.com:8443/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: "https://metadata.internal/x" }, NOTIFY_MSG.endpointHost],
      [{ ...b.subscription, endpoint: `https://push.example.com/${"a".repeat(1100)}` }, "endpoint"],
      [{ ...b.subscription, keys: { ...b.subscription.keys, auth: "AAAA" } }, NOTIFY_MSG.badAuth],
      [
        { ...b.subscription, keys: { ...b.subscription.keys, p256dh: "AAAA" } },
        NOTIFY_MSG.badP256dh,
      ],
      // 65 bytes starting 0x04 but not a point on the curve.
      [
        {
          ...b.subscription,
          keys: {
            ...b.subscription.keys,
            p256dh: Buffer.from([4, ...new Array(64).fill(7)]).toString("base64url"),
          },
        },
        NOTIFY_MSG.badP256dh,
      ],
      [{ endpoint: b.subscription.endpoint }, "keys"],
    ];
    for (const [body, msg] of bad) {
      const res = await subscribe(a.token, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(res.body.message)).toContain(msg);
    }
    expect(await subsOf(a.uuid)).toEqual([]);
  });

  it("keeps at most the newest few per user", async () => {
    const a = await signUp();
    const endpoints: string[] = [];
    for (let i = 0; i < NOTIFY_LIMITS.webSubscriptionsPerUser + 2; i++) {
      const b = await browser();
      endpoints.push(b.subscription.endpoint);
      expect((await subscribe(a.token, b.subscription)).status).toBe(201);
    }
    const kept = await subsOf(a.uuid);
    expect(kept).toHaveLength(NOTIFY_LIMITS.webSubscriptionsPerUser);
    expect(kept).toEqual(endpoints.slice(2));
  });

  it("moves an endpoint another user had to the caller", async () => {
    const [a, b] = [await signUp(), await signUp()];
    const br = await browser();
    await subscribe(a.token, br.subscription);
    await subscribe(b.token, br.subscription);
    expect(await subsOf(a.uuid)).toEqual([]);
    expect(await subsOf(b.uuid)).toEqual([br.subscription.endpoint]);
  });
});

describe("web push: delivery", () => {
  it("sends a payload only the browser can read, with a VAPID token signed by our key", async () => {
    const a = await signUp();
    const b = await browser();
    await subscribe(a.token, b.subscription);
    const { seen, acked, ids } = await deliver(a.uuid);
    expect(acked).toEqual(ids);
    expect(seen).toHaveLength(1);
    const push = seen[0];
    expect(push.url).toBe(b.subscription.endpoint);
    expect(push.headers.get("content-encoding")).toBe("aes128gcm");
    expect(Number(push.headers.get("ttl"))).toBeGreaterThan(0);
    const payload = JSON.parse(await decryptPush(b, push.body));
    const [row] = await rowsOf(a.uuid);
    expect(payload).toEqual({
      uuid: row.uuid,
      kind: "mention",
      title: "kim mentioned you",
      body: "in Lounge: @lou are you there? ñ ✓",
      data: { roomSlug: "lounge" },
    });
    // Another browser's keys cannot read it.
    await expect(decryptPush(await browser(), push.body)).rejects.toThrow();

    const v = await verifyVapid(push.headers.get("authorization")!, push.url);
    expect(v.ok).toBe(true);
    expect(v.k).toBe(env.VAPID_PUBLIC_KEY);
    expect(v.header).toMatchObject({ alg: "ES256", typ: "JWT" });
    expect(v.claims.aud).toBe("https://fcm.googleapis.com");
    expect(v.claims.sub).toBe(env.VAPID_SUBJECT);
    const left = v.claims.exp * 1000 - Date.now();
    expect(left).toBeGreaterThan(3600_000);
    expect(left).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("a VAPID token that was tampered with does not verify (the check can fail)", async () => {
    const a = await signUp();
    const b = await browser();
    await subscribe(a.token, b.subscription);
    const { seen } = await deliver(a.uuid);
    const h = seen[0].headers.get("authorization")!;
    const [, jwt] = h.match(/t=([^,]+)/)!;
    const [hd, , sig] = jwt.split(".");
    const forged = `${hd}.${Buffer.from(JSON.stringify({ aud: "https://evil.example", exp: 1, sub: "x" })).toString("base64url")}.${sig}`;
    expect((await verifyVapid(h.replace(jwt, forged), seen[0].url)).ok).toBe(false);
  });

  it("removes a subscription the push service calls gone (404, 410), and keeps one that failed for now (503)", async () => {
    const a = await signUp();
    const [gone404, gone410, busy] = [await browser(), await browser(), await browser()];
    for (const b of [gone404, gone410, busy]) await subscribe(a.token, b.subscription);
    const status = new Map([
      [gone404.subscription.endpoint, 404],
      [gone410.subscription.endpoint, 410],
      [busy.subscription.endpoint, 503],
    ]);
    const q = recordingQueue();
    stubFetch((c) => new Response(null, { status: status.get(c.url) }));
    await notifyUsers(q.env, [a.uuid], { kind: "custom", title: "t", body: "b" });
    const first = q.messages();
    await consume(first, { NOTIFICATIONS: q.env.NOTIFICATIONS });
    expect(await subsOf(a.uuid)).toEqual([busy.subscription.endpoint]);
    // The failed browser gets a retry message of its own, and only it.
    const retry = q.messages().slice(first.length);
    expect(retry).toHaveLength(1);
    expect(retry[0].retry?.targets).toEqual([
      expect.objectContaining({
        userUuid: a.uuid,
        tokens: [],
        endpoints: [busy.subscription.endpoint],
      }),
    ]);
  });

  it("the whole way: POST /web-notifications/push-notification reaches the browser through the real queue", async () => {
    const a = await signUp();
    const b = await browser();
    await subscribe(a.token, b.subscription);
    const seen = stubFetch();
    const res = await social("/web-notifications/push-notification", {
      headers: SERVICE,
      body: { userUuid: a.uuid, title: "Hello", body: "from the service" },
    });
    expect(res.status).toBe(202);
    await vi.waitFor(() => expect(seen.length).toBe(1), { timeout: 8000, interval: 50 });
    expect(JSON.parse(await decryptPush(b, seen[0].body))).toMatchObject({
      title: "Hello",
      body: "from the service",
    });
    expect((await rowsOf(a.uuid))[0]).toMatchObject({ title: "Hello", kind: "custom" });
  });

  it("push-notification is for admins and services only", async () => {
    const [a, boss] = [await signUp(), await admin()];
    const body = { userUuid: a.uuid, title: "Hi", body: "there" };
    const path = "/web-notifications/push-notification";
    expect((await social(path, { body })).status).toBe(401);
    expect((await social(path, { body, token: a.token })).status).toBe(403);
    expect((await social(path, { body, headers: { "X-Service-Key": "wrong" } })).status).toBe(401);
    stubFetch();
    expect((await social(path, { body, token: boss.token })).status).toBe(202);
    const bad = await social(path, {
      token: boss.token,
      body: { ...body, title: "x".repeat(101) },
    });
    expect(bad.status).toBe(400);
  });

  it("with no VAPID keys web push is off: nothing is sent, the in-app row is still written", async () => {
    const a = await signUp();
    await subscribe(a.token, (await browser()).subscription);
    const seen = stubFetch();
    const q = recordingQueue();
    await notifyUsers(q.env, [a.uuid], { kind: "custom", title: "quiet", body: "b" });
    const r = await consume(q.messages(), { VAPID_PRIVATE_KEY: undefined });
    expect(r.acked).toEqual(r.ids);
    expect(seen).toHaveLength(0);
    expect((await rowsOf(a.uuid)).map((x) => x.title)).toEqual(["quiet"]);
    const status = await social("/info-admin/social-service-status");
    expect(status.body.push).toEqual({ webPush: "on", fcm: "off", apns: "off" });
  });
});

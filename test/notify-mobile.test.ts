import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetApnsJwts } from "../workers/adapters/push/apns";
import { forgetFcmTokens } from "../workers/adapters/push/fcm";
import type { Env } from "../workers/env";
import { notifyUsers, type NotifyInput } from "../workers/queues/user-notifications";
import { signUp, type TestAccount } from "./helpers";
import {
  consume,
  recordingQueue,
  rowsOf,
  social,
  stubFetch,
  unb64u,
  type Captured,
} from "./notify-helpers";

/**
 * FCM HTTP v1 and APNs, at the fetch boundary, against their documented request shapes
 * (firebase.google.com/docs/cloud-messaging/send/v1-api; developer.apple.com "Sending
 * notification requests to APNs"), and dead tokens removed.
 */
afterEach(() => vi.restoreAllMocks());
beforeEach(() => {
  forgetFcmTokens();
  forgetApnsJwts();
});

const pem = (der: ArrayBuffer, label: string) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END ${label}-----\n`;

async function rsaAccount() {
  const k = (await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const json = JSON.stringify({
    type: "service_account",
    project_id: "hangout-test",
    client_email: `push-${crypto.randomUUID()}@hangout-test.iam.gserviceaccount.com`,
    private_key: pem(
      (await crypto.subtle.exportKey("pkcs8", k.privateKey)) as ArrayBuffer,
      "PRIVATE KEY",
    ),
  });
  return { json, publicKey: k.publicKey };
}

async function apnsKey() {
  const k = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  return {
    pem: pem((await crypto.subtle.exportKey("pkcs8", k.privateKey)) as ArrayBuffer, "PRIVATE KEY"),
    publicKey: k.publicKey,
  };
}

const FCM_TOKEN_URL = "https://oauth.test/token";
const fcmEnv = (json: string): Partial<Env> => ({
  FCM_SERVICE_ACCOUNT: json,
  FCM_TOKEN_URL,
  FCM_API_URL: "https://fcm.test",
  VAPID_PRIVATE_KEY: undefined,
});
const apnsEnv = (p8: string): Partial<Env> => ({
  APNS_KEY: p8,
  APNS_KEY_ID: "ABC123DEFG",
  APNS_TEAM_ID: "TEAM123456",
  APNS_TOPIC: "com.hangout",
  APNS_HOST: "apns.test",
  VAPID_PRIVATE_KEY: undefined,
});

const token = (tag = "t") => `${tag}:${crypto.randomUUID().replace(/-/g, "")}`;
const apnsToken = () => crypto.randomUUID().replace(/-/g, "").repeat(2);

async function device(a: TestAccount, platform: string, t: string) {
  const res = await social("/devices", { token: a.token, body: { token: t, platform } });
  expect(res.status).toBe(201);
}

async function devicesOf(uuid: string) {
  const { results } = await env.DB.prepare(
    "select token from devices where user_uuid = ? order by token",
  )
    .bind(uuid)
    .all<{ token: string }>();
  return results.map((r) => r.token);
}

/** Queues `n` to `users` and consumes it (and its retry messages are recorded, not run). */
async function send(over: Partial<Env>, users: string[], n: Partial<NotifyInput> = {}) {
  const q = recordingQueue();
  await notifyUsers(q.env, users, {
    kind: "friend_invitation",
    title: "lou wants to be friends",
    body: "Say yes?",
    data: { from: "lou" },
    ...n,
  });
  const first = q.messages();
  const r = await consume(first, { ...over, NOTIFICATIONS: q.env.NOTIFICATIONS });
  return { ...r, retries: q.messages().slice(first.length) };
}

const json = (c: Captured) => JSON.parse(new TextDecoder().decode(c.body));
const jwtParts = (jwt: string) => {
  const [h, p, s] = jwt.split(".");
  return {
    header: JSON.parse(Buffer.from(h, "base64url").toString()),
    claims: JSON.parse(Buffer.from(p, "base64url").toString()),
    input: new TextEncoder().encode(`${h}.${p}`),
    sig: unb64u(s),
  };
};

function fcmStub(
  send: (c: Captured) => Response = () =>
    Response.json({ name: "projects/hangout-test/messages/1" }),
) {
  return stubFetch(async (c) => {
    if (c.url === FCM_TOKEN_URL) {
      await new Promise((r) => setTimeout(r, 30));
      return Response.json({
        access_token: "ya29.test-access",
        expires_in: 3599,
        token_type: "Bearer",
      });
    }
    return send(c);
  });
}

describe("FCM HTTP v1", () => {
  it("exchanges a signed service-account JWT for an access token, then posts the documented message", async () => {
    const sa = await rsaAccount();
    const a = await signUp();
    const t = token();
    await device(a, "android", t);
    const seen = fcmStub();
    const r = await send(fcmEnv(sa.json), [a.uuid]);
    expect(r.acked).toEqual(r.ids);
    expect(seen.map((c) => c.url)).toEqual([
      FCM_TOKEN_URL,
      "https://fcm.test/v1/projects/hangout-test/messages:send",
    ]);

    const form = new URLSearchParams(new TextDecoder().decode(seen[0].body));
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const jwt = jwtParts(form.get("assertion")!);
    expect(jwt.header).toEqual({ alg: "RS256", typ: "JWT" });
    expect(jwt.claims).toMatchObject({
      iss: JSON.parse(sa.json).client_email,
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      aud: FCM_TOKEN_URL,
    });
    expect(jwt.claims.exp - jwt.claims.iat).toBe(3600);
    expect(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", sa.publicKey, jwt.sig, jwt.input)).toBe(
      true,
    );

    const msg = seen[1];
    expect(msg.headers.get("authorization")).toBe("Bearer ya29.test-access");
    const [row] = await rowsOf(a.uuid);
    expect(json(msg)).toEqual({
      message: {
        token: t,
        notification: { title: "lou wants to be friends", body: "Say yes?" },
        data: { from: "lou", uuid: row.uuid, kind: "friend_invitation" },
        android: { priority: "HIGH" },
      },
    });
  });

  it("reuses the access token, and concurrent sends wait for one exchange", async () => {
    const sa = await rsaAccount();
    const people = [await signUp(), await signUp(), await signUp()];
    for (const p of people) await device(p, "android", token());
    const seen = fcmStub();
    await send(
      fcmEnv(sa.json),
      people.map((p) => p.uuid),
    );
    await send(fcmEnv(sa.json), [people[0].uuid]);
    expect(seen.filter((c) => c.url === FCM_TOKEN_URL)).toHaveLength(1);
    expect(seen.filter((c) => c.url.endsWith("messages:send"))).toHaveLength(4);
  });

  it("a silent push is a data message (and a background push for iOS through FCM)", async () => {
    const sa = await rsaAccount();
    const a = await signUp();
    await device(a, "ios", token());
    const seen = fcmStub();
    await send(fcmEnv(sa.json), [a.uuid], {
      silent: true,
      title: "",
      body: "",
      data: { sync: "crates" },
    });
    const body = json(seen[1]).message;
    expect(body.notification).toBeUndefined();
    expect(body.data).toMatchObject({ sync: "crates" });
    expect(body.apns.headers).toEqual({ "apns-push-type": "background", "apns-priority": "5" });
  });

  it("removes a token FCM calls UNREGISTERED or invalid, keeps one refused for another reason", async () => {
    const sa = await rsaAccount();
    const a = await signUp();
    const [unreg, invalid, other, fine] = [token("u"), token("i"), token("o"), token("f")];
    for (const t of [unreg, invalid, other, fine]) await device(a, "android", t);
    fcmStub((c) => {
      const t = json(c).message.token;
      if (t === unreg)
        return Response.json(
          {
            error: {
              code: 404,
              status: "NOT_FOUND",
              message: "Requested entity was not found.",
              details: [
                {
                  "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                  errorCode: "UNREGISTERED",
                },
              ],
            },
          },
          { status: 404 },
        );
      if (t === invalid)
        return Response.json(
          {
            error: {
              code: 400,
              status: "INVALID_ARGUMENT",
              message: "The registration token is not a valid FCM registration token",
            },
          },
          { status: 400 },
        );
      if (t === other)
        return Response.json(
          {
            error: {
              code: 400,
              status: "INVALID_ARGUMENT",
              message: "Invalid value at 'message.android.ttl'",
            },
          },
          { status: 400 },
        );
      return Response.json({ name: "ok" });
    });
    const r = await send(fcmEnv(sa.json), [a.uuid]);
    expect(r.acked).toEqual(r.ids);
    expect(r.retries).toEqual([]);
    expect(await devicesOf(a.uuid)).toEqual([fine, other].sort());
  });

  it("a device that fails does not fail the others; only it is retried, and the retry sends to it alone", async () => {
    const sa = await rsaAccount();
    const [a, b] = [await signUp(), await signUp()];
    const [busy, ok, okB] = [token("busy"), token("ok"), token("okb")];
    await device(a, "android", busy);
    await device(a, "android", ok);
    await device(b, "android", okB);
    let busyUp = false;
    const seen = fcmStub((c) => {
      const t = json(c).message.token;
      return t === busy && !busyUp
        ? new Response("unavailable", { status: 503 })
        : Response.json({ name: "ok" });
    });
    const r = await send(fcmEnv(sa.json), [a.uuid, b.uuid]);
    expect(r.acked).toEqual(r.ids);
    expect(r.retries).toHaveLength(1);
    expect(r.retries[0].retry).toEqual({
      attempt: 1,
      targets: [expect.objectContaining({ userUuid: a.uuid, tokens: [busy], endpoints: [] })],
    });
    busyUp = true;
    seen.length = 0;
    const again = await consume(r.retries, fcmEnv(sa.json));
    expect(again.acked).toEqual(again.ids);
    expect(
      seen.filter((c) => c.url.endsWith("messages:send")).map((c) => json(c).message.token),
    ).toEqual([busy]);
    // The retry pushes the same in-app notification; it writes no second row.
    expect(await rowsOf(a.uuid)).toHaveLength(1);
  });
});

describe("APNs (token-based)", () => {
  it("posts to /3/device/<token> with the documented headers and a provider JWT signed by the key", async () => {
    const key = await apnsKey();
    const a = await signUp();
    const t = apnsToken();
    await device(a, "ios", t);
    const seen = stubFetch(
      () => new Response(null, { status: 200, headers: { "apns-id": crypto.randomUUID() } }),
    );
    const r = await send(apnsEnv(key.pem), [a.uuid]);
    expect(r.acked).toEqual(r.ids);
    expect(seen).toHaveLength(1);
    const req = seen[0];
    expect(req.url).toBe(`https://apns.test/3/device/${t}`);
    expect(req.headers.get("apns-topic")).toBe("com.hangout");
    expect(req.headers.get("apns-push-type")).toBe("alert");
    expect(req.headers.get("apns-priority")).toBe("10");
    const [scheme, jwt] = req.headers.get("authorization")!.split(" ");
    expect(scheme).toBe("bearer");
    const p = jwtParts(jwt);
    expect(p.header).toEqual({ alg: "ES256", kid: "ABC123DEFG" });
    expect(p.claims.iss).toBe("TEAM123456");
    expect(Math.abs(p.claims.iat - Date.now() / 1000)).toBeLessThan(60);
    expect(
      await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key.publicKey, p.sig, p.input),
    ).toBe(true);
    const [row] = await rowsOf(a.uuid);
    expect(json(req)).toEqual({
      aps: { alert: { title: "lou wants to be friends", body: "Say yes?" }, sound: "default" },
      from: "lou",
      uuid: row.uuid,
      kind: "friend_invitation",
    });
  });

  it("reuses the provider token between sends (Apple refuses one refreshed too often)", async () => {
    const key = await apnsKey();
    const a = await signUp();
    await device(a, "ios", apnsToken());
    const seen = stubFetch(() => new Response(null, { status: 200 }));
    await send(apnsEnv(key.pem), [a.uuid]);
    await send(apnsEnv(key.pem), [a.uuid]);
    expect(seen).toHaveLength(2);
    expect(seen[0].headers.get("authorization")).toBe(seen[1].headers.get("authorization"));
  });

  it("a silent push is a background push at priority 5", async () => {
    const key = await apnsKey();
    const a = await signUp();
    await device(a, "ios", apnsToken());
    const seen = stubFetch(() => new Response(null, { status: 200 }));
    await send(apnsEnv(key.pem), [a.uuid], {
      silent: true,
      title: "",
      body: "",
      data: { sync: 1 },
    });
    expect(seen[0].headers.get("apns-push-type")).toBe("background");
    expect(seen[0].headers.get("apns-priority")).toBe("5");
    expect(json(seen[0])).toMatchObject({ aps: { "content-available": 1 }, sync: 1 });
  });

  it("removes a token APNs calls Unregistered (410) or BadDeviceToken (400); keeps one refused for another reason", async () => {
    const key = await apnsKey();
    const a = await signUp();
    const [gone, bad, big, fine] = [apnsToken(), apnsToken(), apnsToken(), apnsToken()];
    for (const t of [gone, bad, big, fine]) await device(a, "ios", t);
    stubFetch((c) => {
      if (c.url.endsWith(gone))
        return Response.json({ reason: "Unregistered", timestamp: Date.now() }, { status: 410 });
      if (c.url.endsWith(bad)) return Response.json({ reason: "BadDeviceToken" }, { status: 400 });
      if (c.url.endsWith(big)) return Response.json({ reason: "PayloadTooLarge" }, { status: 413 });
      return new Response(null, { status: 200 });
    });
    const r = await send(apnsEnv(key.pem), [a.uuid]);
    expect(r.acked).toEqual(r.ids);
    expect(r.retries).toEqual([]);
    expect(await devicesOf(a.uuid)).toEqual([big, fine].sort());
  });
});

describe("push off", () => {
  it("with no FCM or APNs keys nothing is sent and the in-app row is still written", async () => {
    const a = await signUp();
    await device(a, "ios", apnsToken());
    await device(a, "android", token());
    const seen = stubFetch();
    const r = await send({ VAPID_PRIVATE_KEY: undefined }, [a.uuid], { title: "Only in the app" });
    expect(r.acked).toEqual(r.ids);
    expect(seen).toHaveLength(0);
    expect(r.retries).toEqual([]);
    expect((await rowsOf(a.uuid)).map((x) => x.title)).toEqual(["Only in the app"]);
    expect(await devicesOf(a.uuid)).toHaveLength(2);
  });
});

import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../workers/app";
import { sendEmail } from "../workers/adapters/email";
import { countRows, signUp, user } from "./helpers";

afterEach(() => vi.restoreAllMocks());

const mail = (id: string, to = "someone@example.com") => ({
  channel: "email",
  id,
  to,
  subject: "Hello",
  text: "Body",
});

describe("notifications queue", () => {
  it("puts mail in the dev outbox once, however often a message is delivered", async () => {
    const id = crypto.randomUUID();
    const before = await countRows("dev_outbox");
    for (let attempt = 0; attempt < 3; attempt++) {
      const batch = createMessageBatch("hangout-notifications", [
        { id: `m${attempt}`, timestamp: new Date(), attempts: attempt + 1, body: mail(id) },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      const result = await getQueueResult(batch, ctx);
      expect(result.explicitAcks).toEqual([`m${attempt}`]);
    }
    expect(await countRows("dev_outbox")).toBe(before + 1);
  });

  it("drops a malformed message (ack) instead of retrying it forever", async () => {
    const batch = createMessageBatch("hangout-notifications", [
      { id: "bad", timestamp: new Date(), attempts: 1, body: { channel: "pigeon" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["bad"]);
  });

  it("with a provider configured, posts the mail to it and retries only the message that failed", async () => {
    const calls: { url: string; body: { to: string } }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = JSON.parse(String(init?.body));
      calls.push({ url: String(input), body });
      return new Response(null, { status: body.to === "down@example.com" ? 503 : 202 });
    });
    const withProvider = { ...env, EMAIL_API_URL: "https://mail.example/send", EMAIL_API_KEY: "k" };
    const batch = createMessageBatch("hangout-notifications", [
      {
        id: "ok",
        timestamp: new Date(),
        attempts: 1,
        body: mail(crypto.randomUUID(), "up@example.com"),
      },
      {
        id: "fail",
        timestamp: new Date(),
        attempts: 1,
        body: mail(crypto.randomUUID(), "down@example.com"),
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, withProvider);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["ok"]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(["fail"]);
    expect(calls.map((c) => c.url)).toEqual([
      "https://mail.example/send",
      "https://mail.example/send",
    ]);
    await expect(
      sendEmail(withProvider, { ...mail("x", "down@example.com"), channel: "email" }),
    ).rejects.toThrow(/503/);
  });

  it("gives the provider call a time limit, so a provider that never answers fails the message instead of hanging", async () => {
    let signal: AbortSignal | null | undefined;
    vi.spyOn(globalThis, "fetch").mockImplementation((_input, init) => {
      signal = init?.signal;
      // Answers never; only the abort ends the call.
      return new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    });
    const withProvider = { ...env, EMAIL_API_URL: "https://mail.example/send" };
    const sending = sendEmail(withProvider, { ...mail("slow"), channel: "email" });
    await vi.waitFor(() => expect(signal).toBeInstanceOf(AbortSignal));
    expect(signal!.aborted).toBe(false);
    (signal as unknown as { dispatchEvent(e: Event): void }).dispatchEvent(new Event("abort"));
    await expect(sending).rejects.toThrow("aborted");
  });
});

describe("audit queue", () => {
  it("records a login as an audit event", async () => {
    const a = await signUp();
    await user("/auth/login", { body: { email: a.email, password: a.password } });
    await vi.waitFor(
      async () => {
        const row = await env.DB.prepare(
          "select topic from audit_events where user_uuid = ? and topic = 'user.login'",
        )
          .bind(a.uuid)
          .first();
        expect(row).not.toBeNull();
      },
      { timeout: 5000, interval: 50 },
    );
  });
});

describe("audit queue batches", () => {
  it("writes a full batch of 50 events (more than one statement's worth of values), once", async () => {
    const topic = `test.burst.${crypto.randomUUID()}`;
    const messages = Array.from({ length: 50 }, (_, i) => ({
      id: `a${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: {
        eventId: `${topic}-${i}`,
        topic,
        userUuid: null,
        data: { i },
        occurredAt: Date.now(),
      },
    }));
    for (let delivery = 0; delivery < 2; delivery++) {
      const batch = createMessageBatch("hangout-audit", messages);
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    }
    const row = await env.DB.prepare("select count(*) as n from audit_events where topic = ?")
      .bind(topic)
      .first<{ n: number }>();
    expect(row?.n).toBe(50);
  });
});

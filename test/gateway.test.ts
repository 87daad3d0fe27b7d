import { SELF, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { sendEmail } from "../workers/adapters/email";
import { db } from "../workers/db/client";
import { devOutbox } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { call, callWith, forgedToken, outbox, signUp } from "./helpers";
import { describe, expect, it } from "vitest";
import { SERVICES } from "../workers/lib/service";

describe("gateway", () => {
  it.each(Object.entries(SERVICES))(
    "%s answers its public health check with name and version",
    async (name, version) => {
      const res = await SELF.fetch(`http://x/api/${name}/info-admin/${name}-status`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ service: name, version, status: "ok" });
      // The seeds name the service root (`social GET /`); it is the same check.
      const root = await SELF.fetch(`http://x/api/${name}/`);
      expect(root.status).toBe(200);
      expect(await root.json()).toMatchObject({ service: name, version, status: "ok" });
    },
  );

  it("answers an unknown /api path with a JSON 404 naming the method and path", async () => {
    const res = await call("user-service", "/no/such/thing", { method: "PATCH" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      message: "Cannot PATCH /api/user-service/no/such/thing",
      error: "Not Found",
    });
    const unknownService = await SELF.fetch("http://x/api/nope");
    expect(unknownService.status).toBe(404);
    expect(((await unknownService.json()) as { message: string }).message).toBe(
      "Cannot GET /api/nope",
    );
  });

  it("refuses a forged or malformed bearer token with 401 even on a public route", async () => {
    const a = await signUp();
    const path = "/info-admin/user-service-status";
    expect((await call("user-service", path, { token: a.token })).status).toBe(200);
    // Same claims and kid, signed with another key (test/auth-forgeries.test.ts has the rest).
    for (const token of [await forgedToken(a), "not.a.jwt"]) {
      const res = await call("user-service", path, { token });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe("Invalid or expired token.");
    }
  });

  it("serves the web app for other paths", async () => {
    const res = await SELF.fetch("http://x/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });
});

describe("dev-only pages", () => {
  it("hide the dev outbox (everyone's mail) outside development", async () => {
    const res = await SELF.fetch("http://x/dev/outbox");
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("verification code");
  });
});

describe("mail in production without a provider", () => {
  const PROD = { ENVIRONMENT: "production", EMAIL_API_URL: undefined };

  it("the status check answers 503 and says mail is not configured", async () => {
    const res = await callWith(PROD, "user-service", "/info-admin/user-service-status");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      status: "degraded",
      database: "ok",
      mail: "not configured: set EMAIL_API_URL",
    });
    const dev = await callWith({}, "user-service", "/info-admin/user-service-status");
    expect(dev.body).toMatchObject({ status: "ok", mail: "outbox" });
  });

  it("a reset link or a code is never written to the dev outbox (anyone's inbox on a page)", async () => {
    const a = await signUp();
    await outbox(a.email); // the sign-up code, sent in test mode
    const res = await callWith(PROD, "user-service", "/users/forgot-password", {
      body: { email: a.email },
    });
    expect(res.status).toBe(201);
    // Had it been queued, the consumer (test mode) would have written it by now.
    await new Promise((r) => setTimeout(r, 1500));
    const rows = await db(env).select().from(devOutbox).where(eq(devOutbox.to, a.email)).all();
    expect(rows.map((r) => r.subject)).not.toContain("Reset your Hangout password");
    // A mail already queued when the provider went away is dropped, not stored.
    await sendEmail({ ...env, ...PROD } as Env, {
      channel: "email",
      id: crypto.randomUUID(),
      to: a.email,
      subject: "late",
      text: "x",
    });
    const after = await db(env).select().from(devOutbox).where(eq(devOutbox.to, a.email)).all();
    expect(after.map((r) => r.subject)).not.toContain("late");
  });
});

import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { errorReports } from "../workers/db/schema";
import { admin, countRows, signUp } from "./helpers";
import { merch } from "./avatars-helpers";

describe("POST /sentry-testing and the error-reporting path", () => {
  it("answers an admin the usual 500 body and records the error in error_reports", async () => {
    const boss = await admin();
    const res = await merch("/sentry-testing", { token: boss.token, method: "POST" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      statusCode: 500,
      message: "Internal Server Error",
      error: "Internal Server Error",
    });
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
      service: "merch-service",
      message: "SentryTestError: Sentry test error raised on purpose.",
      path: "POST /api/merch-service/sentry-testing",
    });
    expect(row.stack).toContain("SentryTestError");
  });

  it("refuses a plain user (403) and no token (401), recording nothing", async () => {
    const before = await countRows("error_reports");
    const u = await signUp();
    const res = await merch("/sentry-testing", { token: u.token, method: "POST" });
    expect(res.status).toBe(403);
    expect((await merch("/sentry-testing", { method: "POST" })).status).toBe(401);
    // Give a stray waitUntil time to land before proving nothing was written.
    await new Promise((r) => setTimeout(r, 100));
    expect(await countRows("error_reports")).toBe(before);
  });
});

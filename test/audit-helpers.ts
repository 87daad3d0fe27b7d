import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { vi } from "vitest";
import { db } from "../workers/db/client";
import { auditEvents } from "../workers/db/schema";
import { call, type CallInit } from "./helpers";

/** Helpers for the audit-service tests (test/audit-*.test.ts). */

export const auditApi = (path: string, init?: CallInit) => call("audit-service", path, init);

/** A request as Cloudflare's edge would hand it on: `cf` geolocation and a `cf-ray` id. */
export async function callFrom(
  cf: Record<string, unknown>,
  url: string,
  init: { method?: string; token?: string; body?: unknown; ray?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.ray) headers["cf-ray"] = init.ray;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await SELF.fetch(`http://hangout.test/api/${url}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    cf,
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export type NewEvent = typeof auditEvents.$inferInsert;
let seq = 0;
/** Stores events directly (the consumer's table), with defaults for what a test leaves out. */
export async function storeEvents(rows: Partial<NewEvent>[]) {
  const values = rows.map((r) => ({
    eventId: `test:${crypto.randomUUID()}:${seq++}`,
    topic: "test.event",
    occurredAt: Date.now(),
    data: {},
    ...r,
  }));
  return db(env).insert(auditEvents).values(values).returning().all();
}

/** Waits for the queue's consumer to store an event matching `where`, and answers it. */
export async function eventWhere(
  match: (e: typeof auditEvents.$inferSelect) => boolean,
  topic: string,
) {
  return vi.waitFor(
    async () => {
      const rows = await db(env)
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.topic, topic))
        .all();
      const hit = rows.find(match);
      if (!hit) throw new Error(`no ${topic} event yet`);
      return hit;
    },
    { timeout: 5000, interval: 50 },
  );
}

// One "DJ is live" to BENCH_FANS fans (default 100,000) through the notifications queue
// (issue 14), in one Miniflare (the workerd + SQLite + queues that `wrangler dev` runs) with
// every migration applied and the production consumer settings (wrangler.toml: batches of 10,
// a 1 s timeout). Measured:
//   - queue: `notifyFans` sends ONE `fans` message; the consumer reads the fans 2,000 a page
//     and queues 20 `users` messages a page (100 recipients each), which the consumer turns
//     into in-app rows (push is off: no keys). Timed from the send until every fan has their
//     row; messages per second counts every message the queue carried (pages + users).
//   - direct (the baseline, same run): the very same consumer code (`consumeUsersMessage`)
//     called in-process on the same number of users messages, one after another, no queue.
//     queue / direct is what the queue hops and batching cost on top of the work itself.
// The two alternate over BENCH_ROUNDS rounds (default 2), each on fresh notification ids.
// Miniflare delivers one batch at a time; Cloudflare runs consumers concurrently (up to the
// queue's max_concurrency), so the queue's rate here is a floor, not what production does.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { workerCall } from "./lib/miniflare-call.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FANS = Number(process.env.BENCH_FANS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PER_MESSAGE = 100;

const ENTRY = `
import { consumeNotifications } from "../workers/queues/notifications.ts";
import { FANOUT_PAGE, notifyFans } from "../workers/queues/fan-notifications.ts";
import { consumeUsersMessage } from "../workers/queues/user-notifications.ts";
const json = (v) => Response.json(v ?? null);
export default {
  async fetch(req, env) {
    const b = await req.json();
    switch (b.op) {
      case "sql": await env.DB.prepare(b.sql).run(); return json(true);
      case "fans": {
        const sql = "WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?) " +
          "INSERT OR IGNORE INTO dj_fans (dj_uuid, user_uuid, created_at) SELECT ?, printf('fan-%07d', i), 0 FROM s";
        await env.DB.prepare(sql).bind(b.from, b.to, b.dj).run();
        return json(true);
      }
      case "rows": return json(await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE title = ?").bind(b.title).first("n"));
      case "fanout":
        await notifyFans(env, b.dj, { kind: "dj_live", title: b.title, body: "in Bench" });
        return json({ page: FANOUT_PAGE });
      case "direct": {
        const t = Date.now();
        for (let i = 0; i < b.count; i += ${PER_MESSAGE}) {
          const recipients = [];
          for (let j = i; j < Math.min(b.count, i + ${PER_MESSAGE}); j++) recipients.push("fan-" + String(j).padStart(7, "0"));
          await consumeUsersMessage(env, { channel: "users", id: b.title + ":" + i, recipients, createdAt: t,
            kind: "dj_live", title: b.title, body: "in Bench", data: {}, silent: false, throttleSeconds: 3600 });
        }
        return json(Date.now() - t);
      }
    }
    return new Response("bad op", { status: 400 });
  },
  async queue(batch, env) { return consumeNotifications(batch, env); },
};`;

async function bundle() {
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: `${ROOT}bench`, loader: "js", sourcefile: "fanout.js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:workers", "node:*"],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

/** Every migration's statements, in order (what `wrangler d1 migrations apply` runs). */
function migrations() {
  const dir = `${ROOT}migrations/`;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .flatMap((f) =>
      readFileSync(dir + f, "utf8")
        .split("--> statement-breakpoint")
        .map((s) =>
          s
            .split("\n")
            .filter((l) => !l.trimStart().startsWith("--"))
            .join("\n")
            .trim(),
        )
        .filter(Boolean),
    );
}

const r2 = (v) => Math.round(v * 100) / 100;

export default async function run({ log }) {
  const mf = new Miniflare({
    modules: true,
    script: await bundle(),
    compatibilityDate: "2026-04-26",
    compatibilityFlags: ["nodejs_compat"],
    d1Databases: { DB: "bench-fanout" },
    queueProducers: { NOTIFICATIONS: "hangout-notifications" },
    queueConsumers: {
      "hangout-notifications": { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 5 },
    },
    bindings: { ENVIRONMENT: "development" },
  });
  try {
    const call = workerCall(mf);
    for (const sql of migrations()) await call({ op: "sql", sql });
    const dj = "bench-dj";
    for (let from = 0; from < FANS; from += 50_000)
      await call({ op: "fans", dj, from, to: Math.min(FANS, from + 50_000) - 1 });
    log(`${FANS.toLocaleString("en")} fans of one DJ loaded`);

    const rows = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Queue: one send, then wait for every fan's row.
      const title = `live ${round}`;
      const t0 = performance.now();
      const { page } = await call({ op: "fanout", dj, title });
      let n = 0;
      while (n < FANS) {
        await new Promise((r) => setTimeout(r, 200));
        n = await call({ op: "rows", title });
      }
      const queueS = (performance.now() - t0) / 1000;
      const messages = Math.ceil(FANS / page) + Math.ceil(FANS / PER_MESSAGE);
      // Direct: the same consumer work in-process.
      const directS = (await call({ op: "direct", title: `direct ${round}`, count: FANS })) / 1000;
      const row = {
        round,
        fans: FANS,
        messages,
        queueSeconds: r2(queueS),
        queueMessagesPerSecond: Math.round(messages / queueS),
        queueRecipientsPerSecond: Math.round(FANS / queueS),
        directSeconds: r2(directS),
        directRecipientsPerSecond: Math.round(FANS / directS),
        queueOverDirect: r2(queueS / directS),
      };
      rows.push(row);
      log(
        `round ${round}: queue ${row.queueSeconds} s (${row.queueMessagesPerSecond} msg/s, ` +
          `${row.queueRecipientsPerSecond} fans/s); direct ${row.directSeconds} s ` +
          `(${row.directRecipientsPerSecond} fans/s); queue / direct ${row.queueOverDirect}`,
      );
    }
    return { rows };
  } finally {
    await mf.dispose();
  }
}

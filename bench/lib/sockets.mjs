// Client-side helpers for the benches that drive websockets (bench/rooms.bench.mjs): opening
// many sockets, pacing sends at a rate, waiting on a condition, and the statistics the
// tables print. Not a benchmark itself (bench/run.mjs runs only *.bench.mjs files).
import WebSocket from "ws";

/** Sockets opened at once: more makes the gateway's D1 reads queue behind each other. */
export const CONNECT_BATCH = 25;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The p-th percentile (nearest rank) of an ascending array; null when empty. */
export const pct = (sorted, p) =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
    : null;

/** One decimal, or null for a missing or non-finite number. */
export const r1 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);

/** Two decimals, or null. */
export const r2 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

export function median(xs) {
  const s = xs.filter((x) => x != null && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** n, p50, p99 and max of the non-null values, one decimal. */
export function latencyStats(xs) {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  return { n: s.length, p50: r1(pct(s, 50)), p99: r1(pct(s, 99)), max: r1(s[s.length - 1]) };
}

/** CPU this process (the sockets' side) used since `since`, in cores: near 1 means the client may be the limit. */
export function cpuShare(since, t0) {
  const { user, system } = process.cpuUsage(since);
  return r2((user + system) / 1000 / (performance.now() - t0));
}

/** x / y to two decimals, or null when either is missing (or y is 0). */
export const ratio = (x, y) => (x != null && y ? r2(x / y) : null);

/** Opens `n` sockets to `urlOf(i)`, CONNECT_BATCH at a time; returns the ones that opened. */
export async function openSockets(n, urlOf, onMessage, log) {
  const socks = [];
  const errors = new Map();
  for (let i = 0; i < n; i += CONNECT_BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + CONNECT_BATCH); j++) {
      batch.push(
        new Promise((resolve) => {
          const ws = new WebSocket(urlOf(j), { perMessageDeflate: false });
          const sock = { i: j, ws };
          ws.on("message", (data) => onMessage(sock, data.toString()));
          const to = setTimeout(() => {
            errors.set("timeout", (errors.get("timeout") ?? 0) + 1);
            ws.terminate();
            resolve(null);
          }, 20_000);
          ws.once("open", () => {
            clearTimeout(to);
            resolve(sock);
          });
          ws.once("error", (e) => {
            clearTimeout(to);
            errors.set(e.message, (errors.get(e.message) ?? 0) + 1);
            resolve(null);
          });
        }),
      );
    }
    for (const s of await Promise.all(batch)) if (s) socks.push(s);
  }
  if (errors.size)
    log(
      `  ${n - socks.length} of ${n} sockets failed to open: ${[...errors].map(([m, c]) => `${c}x ${m}`).join("; ")}`,
    );
  return { socks, errors: Object.fromEntries(errors) };
}

export const closeAll = (socks) => socks.forEach((s) => s.ws.terminate());

/** Sends `count` items at `rate` per second: `sendOne(k)` for k = 0..count-1; answers the seconds it took. */
export async function paced(count, rate, sendOne) {
  const t0 = performance.now();
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
    while (sent < due) sendOne(sent++);
    if (sent < count) await sleep(5);
  }
  return (performance.now() - t0) / 1000;
}

/** Polls `cond` every 20 ms; answers whether it held within `ms`. */
export async function waitFor(cond, ms) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

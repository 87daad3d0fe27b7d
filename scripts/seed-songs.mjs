// Demo songs for `npm run dev` and the browser tests, uploaded through the real API (the
// same path a person's upload takes: multipart POST, R2, analysis, VERIFIED), so what the
// app plays locally is what production would play. Idempotent: tracks already among the
// admin's uploads (matched by trackName) are skipped, so it runs on every start.
// `node scripts/seed-songs.mjs [baseURL]` seeds a running server (default :8787).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { ensureDemoMusic } from "./demo-music.mjs";
import { SEED_USERS } from "./seed.mjs";

const ADMIN = SEED_USERS.find((u) => u.roles.includes("admin"));
export const HEALTH_PATH = "/api/upload-service/info-admin/upload-service-status";
const PAGE = 100;

/** A seeding failure with a message a person can act on. `missingRoute`: the server answered `Cannot <METHOD> <path>` (route not built yet). */
export class SeedSongsError extends Error {
  constructor(message, { status, missingRoute = false } = {}) {
    super(message);
    this.name = "SeedSongsError";
    this.status = status;
    this.missingRoute = missingRoute;
  }
}

async function call(baseURL, method, path, { token, json, form, timeoutMs = 60_000 } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (json) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(`${baseURL}${path}`, {
      method,
      headers,
      body: json ? JSON.stringify(json) : form,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new SeedSongsError(
      `${method} ${path} did not answer (${err.cause?.code ?? err.name}: ${err.cause?.message ?? err.message}); is the server at ${baseURL} up?`,
    );
  }
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  if (!res.ok) {
    // The common error body is { statusCode, message, error }; message may be a list.
    const msg =
      body && typeof body === "object"
        ? [body.message].flat().filter(Boolean).join("; ")
        : String(body).slice(0, 300);
    // A path no route matches answers 404 "Cannot <METHOD> <path>" (DESIGN.md), unlike a missing record.
    const missingRoute = res.status === 404 && /^Cannot [A-Z]+ /.test(msg);
    throw new SeedSongsError(
      `${method} ${path} answered ${res.status}${msg ? `: ${msg}` : ""}${missingRoute ? " (the route is not there yet)" : ""}`,
      { status: res.status, missingRoute },
    );
  }
  return body;
}

/**
 * Waits until the upload-service health check answers 200.
 * @param {string} baseURL
 * @param {{ timeoutMs?: number, alive?: () => boolean }} [opts] alive: false stops waiting (the server process died)
 */
export async function waitForServer(baseURL, { timeoutMs = 120_000, alive = () => true } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  for (;;) {
    try {
      const res = await fetch(`${baseURL}${HEALTH_PATH}`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    if (!alive()) throw new SeedSongsError(`the server stopped before ${HEALTH_PATH} answered`);
    if (Date.now() > deadline)
      throw new SeedSongsError(
        `${baseURL}${HEALTH_PATH} did not answer 200 within ${timeoutMs / 1000} s (last: ${last})`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

const key = (name) =>
  String(name ?? "")
    .trim()
    .toLowerCase();

/**
 * Uploads the demo tracks the seeded admin has not uploaded yet.
 * Throws SeedSongsError when logging in, listing or any upload fails (after trying the
 * other uploads, so one bad file does not hold back the rest).
 * @param {string} baseURL e.g. http://127.0.0.1:8787
 * @param {{ log?: (msg: string) => void, tracks?: Awaited<ReturnType<typeof ensureDemoMusic>> }} [opts]
 * @returns {Promise<{ uploaded: number, existing: number, total: number, songs: { trackName: string, songId: string, status: string }[], notVerified: { trackName: string, status: string }[] }>}
 */
export async function seedDemoSongs(baseURL, { log = () => {}, tracks } = {}) {
  baseURL = baseURL.replace(/\/+$/, "");
  const music = tracks ?? (await ensureDemoMusic({ log }));

  let token;
  try {
    ({ token } = await call(baseURL, "POST", "/api/user-service/auth/login", {
      json: { email: ADMIN.email, password: ADMIN.password },
    }));
  } catch (err) {
    throw new SeedSongsError(
      `logging in as ${ADMIN.email} failed: ${err.message} (were the users seeded?)`,
      err,
    );
  }
  if (!token) throw new SeedSongsError(`logging in as ${ADMIN.email} gave no token`);

  // The admin's own uploads, every page (the contract pages with limit/offset).
  const have = new Map();
  for (let offset = 0; ; offset += PAGE) {
    const page = await call(
      baseURL,
      "GET",
      `/api/upload-service/songs?limit=${PAGE}&offset=${offset}`,
      { token },
    );
    const data = Array.isArray(page?.data) ? page.data : null;
    if (!data)
      throw new SeedSongsError(
        `GET /api/upload-service/songs answered without a data list: ${JSON.stringify(page).slice(0, 200)}`,
      );
    for (const s of data) have.set(key(s.trackName), s);
    if (data.length < PAGE || have.size >= (page.total ?? 0)) break;
  }

  const songs = [];
  const notVerified = [];
  const failures = [];
  let uploaded = 0;
  for (const t of music) {
    const existing = have.get(key(t.trackName));
    if (existing) {
      songs.push({ trackName: t.trackName, songId: existing.songId, status: existing.status });
      if (existing.status !== "VERIFIED")
        notVerified.push({ trackName: t.trackName, status: existing.status });
      continue;
    }
    // Text fields before the file: the route checks them before it streams the file.
    const form = new FormData();
    form.append("trackName", t.trackName);
    form.append("artistName", t.artistName);
    form.append("albumName", t.albumName);
    form.append("genre", t.genre);
    form.append("isPublic", "true");
    form.append("file", new Blob([readFileSync(t.path)], { type: "audio/mpeg" }), basename(t.path));
    try {
      const song = await call(baseURL, "POST", "/api/upload-service/upload/song", { token, form });
      uploaded++;
      songs.push({ trackName: t.trackName, songId: song?.songId, status: song?.status });
      if (song?.status !== "VERIFIED")
        notVerified.push({ trackName: t.trackName, status: song?.status });
      log(`uploaded demo song "${t.trackName}" (${song?.status})`);
    } catch (err) {
      failures.push(`"${t.trackName}": ${err.message}`);
      // The same answer is coming for every file: stop at the first.
      if (err.missingRoute || err.status === 401 || err.status === 403) break;
    }
  }
  if (failures.length) {
    const err = new SeedSongsError(
      `uploading demo songs failed (${uploaded} uploaded, ${failures.length} failed):\n  ${failures.join("\n  ")}`,
    );
    err.missingRoute = failures.every((f) => f.includes("(the route is not there yet)"));
    throw err;
  }
  return { uploaded, existing: music.length - uploaded, total: music.length, songs, notVerified };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.argv[2] ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
  try {
    await waitForServer(base, { timeoutMs: 10_000 });
    const r = await seedDemoSongs(base, { log: console.log });
    console.log(`seeded ${r.uploaded} demo songs (${r.existing} already there)`);
    for (const s of r.notVerified)
      console.warn(`warning: "${s.trackName}" is ${s.status}, not VERIFIED`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

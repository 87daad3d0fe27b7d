// The local transcoder (issue 18): a small HTTP server that plays the production
// transcoder's part of the contract (workers/adapters/transcoder.ts) with Debian's ffmpeg.
// `npm run dev` and the browser tests start it; alone: `node scripts/transcoder.mjs`
// (TRANSCODER_PORT, default 8790; the secret from .dev.vars).
//
//   GET  /health  -> { ok: true, ffmpeg: true|false } (the Worker refuses WAV/FLAC/Ogg/M4A
//                    uploads with 415 unless ffmpeg is true)
//   POST /jobs    -> 202; signed { songId, contentType, sourceUrl, renditionUrl, callbackUrl }.
//                    Then: GET the original, ffmpeg it to MP3 (tags kept as ID3v2.3), PUT the
//                    MP3, POST a signed COMPLETE (or ERROR with ffmpeg's reason) to the callback.
//
// One job at a time (the machine is shared); a job already running or queued for a song is
// not queued again. Signatures: `t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
import { spawn, spawnSync } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_JOB_BYTES = 64 * 1024;
/** The largest original fetched: uploads stop at 50 MB. */
const MAX_SOURCE_BYTES = 60 * 1024 * 1024;
const FFMPEG_TIMEOUT_MS = 10 * 60_000;
const TOLERANCE_S = 300;

/** Whether Debian's ffmpeg (or any ffmpeg on PATH) runs. */
export function hasFfmpeg() {
  try {
    return spawnSync("ffmpeg", ["-hide_banner", "-version"], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  }
}

export function sign(secret, body, nowS = Math.floor(Date.now() / 1000)) {
  const mac = createHmac("sha256", secret).update(`${nowS}.${body}`).digest("hex");
  return `t=${nowS},v1=${mac}`;
}

export function verify(secret, header, body, nowS = Math.floor(Date.now() / 1000)) {
  const parts = Object.fromEntries(
    String(header ?? "")
      .split(",")
      .map((p) => p.split("=").map((s) => s.trim())),
  );
  if (!/^\d{1,12}$/.test(parts.t ?? "") || Math.abs(nowS - Number(parts.t)) > TOLERANCE_S)
    return false;
  if (!/^[0-9a-f]{64}$/.test(parts.v1 ?? "")) return false;
  const want = createHmac("sha256", secret).update(`${parts.t}.${body}`).digest();
  return timingSafeEqual(Buffer.from(parts.v1, "hex"), want);
}

/** Runs ffmpeg on `input`, writing an MP3 to `output`; rejects with its last words. */
function ffmpeg(input, output) {
  return new Promise((resolve, reject) => {
    const p = spawn(
      "ffmpeg",
      [
        ...["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", input],
        ...["-vn", "-map_metadata", "0", "-codec:a", "libmp3lame", "-b:a", "192k"],
        ...["-id3v2_version", "3", "-f", "mp3", output],
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    p.stderr.on("data", (d) => (err = (err + d).slice(-2000)));
    const timer = setTimeout(() => p.kill("SIGKILL"), FFMPEG_TIMEOUT_MS);
    p.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    p.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else {
        const last = err.trim().split("\n").pop() || `ffmpeg exited with ${code}`;
        reject(new Error(`ffmpeg could not convert the file: ${last}`.slice(0, 900)));
      }
    });
  });
}

/**
 * Starts the transcoder. Resolves once it listens: `{ url, port, close }`.
 * @param {{ port?: number, host?: string, secret: string, log?: Pick<Console, "log" | "warn" | "error"> }} o
 */
export function startTranscoder({ port = 8790, host = "127.0.0.1", secret, log = console }) {
  if (!secret) throw new Error("the transcoder needs TRANSCODER_SECRET");
  const ffmpegOk = hasFfmpeg();
  if (!ffmpegOk)
    log.warn(
      "transcoder: ffmpeg is not installed, so WAV, FLAC, Ogg and M4A uploads are refused (415).\n" +
        "  Install it with: sudo apt-get install -y ffmpeg   (then restart npm run dev)",
    );
  const queue = [];
  const queued = new Set();
  let running = false;

  async function report(job, payload) {
    const body = JSON.stringify({ songId: job.songId, ...payload });
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(job.callbackUrl, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Transcoder-Signature": sign(secret, body),
          },
          body,
        });
        if (res.ok || (res.status >= 400 && res.status < 500)) {
          if (!res.ok)
            log.error(`transcoder: callback for ${job.songId} refused: ${await res.text()}`);
          return;
        }
        throw new Error(`callback answered ${res.status}`);
      } catch (err) {
        if (attempt >= 3) return log.error(`transcoder: callback for ${job.songId} failed`, err);
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
  }

  async function run(job) {
    if (!ffmpegOk)
      return report(job, { status: "ERROR", detail: "ffmpeg is not installed on the transcoder." });
    const dir = await mkdtemp(join(tmpdir(), "transcode-"));
    try {
      const src = await fetch(job.sourceUrl);
      if (!src.ok) throw new Error(`reading the original answered ${src.status}`);
      if (Number(src.headers.get("content-length")) > MAX_SOURCE_BYTES)
        throw new Error("the original is too large");
      const bytes = Buffer.from(await src.arrayBuffer());
      if (bytes.length > MAX_SOURCE_BYTES) throw new Error("the original is too large");
      const input = join(dir, "original");
      const output = join(dir, "rendition.mp3");
      await writeFile(input, bytes);
      await ffmpeg(input, output);
      const mp3 = await readFile(output);
      const put = await fetch(job.renditionUrl, {
        method: "PUT",
        headers: { "Content-Type": "audio/mpeg" },
        body: mp3,
      });
      if (!put.ok) throw new Error(`storing the MP3 answered ${put.status}: ${await put.text()}`);
      const { mp3Key } = await put.json();
      await report(job, { status: "COMPLETE", mp3Key });
      log.log(`transcoder: ${job.songId} (${job.contentType}) -> MP3, ${mp3.length} bytes`);
    } catch (err) {
      log.error(`transcoder: ${job.songId} failed: ${err.message}`);
      // A song that no longer waits (409) needs no report; anything else is an ERROR.
      if (!/answered 409/.test(err.message))
        await report(job, { status: "ERROR", detail: err.message.slice(0, 900) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function drain() {
    if (running) return;
    running = true;
    while (queue.length) {
      const job = queue.shift();
      await run(job).catch((err) => log.error("transcoder: job crashed", err));
      queued.delete(job.songId);
    }
    running = false;
  }

  const server = createServer((req, res) => {
    const answer = (status, body) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/health")
      return answer(200, { ok: true, ffmpeg: ffmpegOk });
    if (req.method !== "POST" || req.url !== "/jobs") return answer(404, { message: "Not found." });
    let raw = "";
    let tooBig = false;
    req.on("data", (d) => {
      raw += d;
      if (raw.length > MAX_JOB_BYTES) {
        tooBig = true;
        req.destroy();
      }
    });
    req.on("end", () => {
      if (tooBig) return;
      if (!verify(secret, req.headers["x-transcoder-signature"], raw))
        return answer(401, { message: "Invalid or expired signature." });
      let job;
      try {
        job = JSON.parse(raw);
        for (const k of ["songId", "sourceUrl", "renditionUrl", "callbackUrl"])
          if (typeof job[k] !== "string") throw new Error(`${k} is missing`);
      } catch (err) {
        return answer(400, { message: `Bad job: ${err.message}` });
      }
      // At least once from the queue: the same song twice is one job.
      if (!queued.has(job.songId)) {
        queued.add(job.songId);
        queue.push(job);
        void drain();
      }
      answer(202, { accepted: true });
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        port: actual,
        url: `http://${host}:${actual}`,
        ffmpeg: ffmpegOk,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** `name` from .dev.vars (scripts/setup.mjs writes TRANSCODER_SECRET and TRANSCODER_URL there). */
function devVar(name) {
  const file = fileURLToPath(new URL("../.dev.vars", import.meta.url));
  if (!existsSync(file)) return undefined;
  return readFileSync(file, "utf8").match(new RegExp(`^${name}="?([^"\\n]*)"?$`, "m"))?.[1];
}

/** The dev transcoder, where .dev.vars says the Worker will look for it. */
export function startDevTranscoder(log = console) {
  const url = new URL(devVar("TRANSCODER_URL") ?? "http://127.0.0.1:8790");
  return startTranscoder({
    port: Number(url.port || 80),
    host: url.hostname,
    secret: devVar("TRANSCODER_SECRET"),
    log,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  startDevTranscoder().then((t) =>
    console.log(`transcoder on ${t.url} (ffmpeg ${t.ffmpeg ? "found" : "missing"})`),
  );
}

import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../workers/api";
import worker from "../workers/app";
import {
  SIGNATURE_HEADER,
  verifyTranscoderBody,
  type TranscodeJob,
} from "../workers/adapters/transcoder";
import { db } from "../workers/db/client";
import { songUploads, songs } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { consumeTranscodes, MAX_ATTEMPTS } from "../workers/queues/transcodes";
import { MSG as UPLOAD_MSG } from "../workers/upload-service/messages";
import { STALE_UPLOAD_MS } from "../workers/upload-service/stale-uploads";
import { signUp, type TestAccount } from "./helpers";
import { json, stubFetch } from "./music-stubs";
import {
  FRAME_BYTES,
  mp3,
  mp3Frames,
  namedTag,
  songForm,
  svc,
  transcoderReport,
  uploadSong,
} from "./songs-helpers";

// Issue 18: every accepted upload format plays. A FLAC goes through the real queue consumer
// and the transcoder contract (the transcoder stubbed at the fetch boundary, playing its
// part with the signed URLs it was given), ends VERIFIED and plays; forged and replayed
// callbacks change nothing; without a transcoder such uploads are 415; the cron fails
// uploads that never finished and aborts their R2 multipart uploads.

const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const FLAC = bytesOf(env.TEST_FLAC_FIXTURE);
const RENDITION = bytesOf(env.TEST_MP3_RENDITION);
const TRANSCODER = "https://transcoder.test";

afterEach(() => vi.restoreAllMocks());

/** The transcoder, stubbed where the Worker fetches it: every job it is sent, with its signature. */
function stubTranscoder(answer: () => Response = () => json({ accepted: true }, 202)) {
  const jobs: { job: TranscodeJob; signature: string | null; raw: string }[] = [];
  const stub = stubFetch([
    [
      `${TRANSCODER}/jobs`,
      (_url, init) => {
        const raw = String(init?.body);
        jobs.push({
          job: JSON.parse(raw),
          signature: new Headers(init?.headers).get(SIGNATURE_HEADER),
          raw,
        });
        return answer();
      },
    ],
  ]);
  return { jobs, ...stub };
}

/** Runs the transcode consumer on one message, as Queues would deliver it. */
async function deliver(songId: string, attempts = 1) {
  const batch = createMessageBatch("hangout-transcodes", [
    {
      id: crypto.randomUUID(),
      timestamp: new Date(),
      attempts,
      body: { songId, origin: "http://hangout.test" },
    },
  ]);
  const ctx = createExecutionContext();
  await consumeTranscodes(batch, env);
  return getQueueResult(batch, ctx);
}

const song = async (songId: string) =>
  (await db(env).select().from(songs).where(eq(songs.songId, songId)).get())!;

async function uploadFlac(a: TestAccount, fields: Record<string, string> = {}) {
  const res = await uploadSong(a.token, FLAC, fields, "tone.flac", "audio/flac");
  expect(res.status).toBe(201);
  expect(res.body.status).toBe("VERIFICATION_POSTPONED");
  return res.body.songId as string;
}

/** What the transcoder does with a job: read the original, store the MP3, report COMPLETE. */
async function playTranscoder(job: TranscodeJob, mp3Bytes: Uint8Array<ArrayBuffer> = RENDITION) {
  const source = await SELF.fetch(job.sourceUrl);
  expect(source.status).toBe(200);
  const original = new Uint8Array(await source.arrayBuffer());
  const put = await SELF.fetch(job.renditionUrl, {
    method: "PUT",
    headers: { "Content-Type": "audio/mpeg" },
    body: mp3Bytes,
  });
  expect(put.status).toBe(201);
  const { mp3Key } = (await put.json()) as { mp3Key: string };
  const report = await transcoderReport({ songId: job.songId, status: "COMPLETE", mp3Key });
  return { original, mp3Key, report };
}

describe("a FLAC upload through the transcoder", () => {
  it("is handed to the transcoder by the queue, ends VERIFIED with its tags, and plays", async () => {
    const a = await signUp();
    const t = stubTranscoder();
    const songId = await uploadFlac(a, { isPublic: "true" });
    // Every byte is stored: nothing is left for the sweeper.
    const row = await song(songId);
    expect(
      await db(env).select().from(songUploads).where(eq(songUploads.songId, row.id)).get(),
    ).toBeUndefined();

    const result = await deliver(songId);
    expect(result.explicitAcks).toHaveLength(1);
    const sent = t.jobs.find((j) => j.job.songId === songId)!;
    expect(sent.job).toMatchObject({
      songId,
      contentType: "audio/flac",
      callbackUrl: "http://hangout.test/api/upload-service/upload/transcoder_sns",
    });
    // Signed with the shared secret, so the transcoder can refuse forged jobs.
    expect(await verifyTranscoderBody(env.TRANSCODER_SECRET, sent.signature!, sent.raw)).toBe(true);

    const { original, report } = await playTranscoder(sent.job);
    expect(original).toEqual(FLAC);
    expect(report.status).toBe(200);
    expect(report.body).toEqual({ songId, status: "VERIFIED" });
    const after = (await svc(`/songs/${songId}`, { token: a.token })).body;
    expect(after).toMatchObject({
      status: "VERIFIED",
      trackName: "Fixture Tone",
      artistName: "The Fixtures",
      genre: "Test Tones",
      duration: 2,
      detail: null,
    });
    // Playable: the playlist lists segments, and they are served.
    const pl = await SELF.fetch(
      `http://hangout.test/api/upload-service/songs/${songId}/hls-playlist`,
      {
        headers: { Authorization: `Bearer ${a.token}` },
      },
    );
    expect(pl.status).toBe(200);
    const segment = (await pl.text()).split("\n").find((l) => l.startsWith("/api/"))!;
    const seg = await SELF.fetch(`http://hangout.test${segment}`);
    expect(seg.status).toBe(200);
    expect((await seg.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // Its genre is now suggested (the upload page's list).
    const genres = await SELF.fetch(
      "http://hangout.test/api/playlist-service/api/v1/genres?prefix=Test%20Tones",
      {
        headers: { Authorization: `Bearer ${a.token}` },
      },
    );
    expect(JSON.stringify(await genres.json())).toContain("Test Tones");

    // The job's URLs die with the wait: the source and rendition are 409 once settled.
    expect((await SELF.fetch(sent.job.sourceUrl)).status).toBe(409);
    // A second delivery of the message sends nothing.
    const before = t.count(`${TRANSCODER}/jobs`);
    await deliver(songId);
    expect(t.count(`${TRANSCODER}/jobs`)).toBe(before);
  });

  it("credits a replayed or duplicated callback once, and refuses a forged one", async () => {
    const a = await signUp();
    const t = stubTranscoder();
    const songId = await uploadFlac(a, { trackName: "Replay", artistName: "Guard" });
    await deliver(songId);
    const job = t.jobs.find((j) => j.job.songId === songId)!.job;

    // Forged: the right body under another secret, or a signed body with a changed field.
    const forged = await transcoderReport(
      { songId, status: "ERROR", detail: "forged" },
      { secret: "not-the-secret" },
    );
    expect(forged.status).toBe(401);
    expect(forged.body.message).toBe(UPLOAD_MSG.badTranscoderSignature);
    const raw = JSON.stringify({ songId, status: "ERROR" });
    const good = await transcoderReport({ songId, status: "ERROR" }, { signature: null });
    expect(good.status).toBe(401);
    const { signTranscoderBody } = await import("../workers/adapters/transcoder");
    const sig = await signTranscoderBody("test-transcoder-secret", raw);
    const tampered = await svc("/upload/transcoder_sns", {
      body: raw.replace("ERROR", "COMPLETE"),
      headers: { "Content-Type": "application/json", [SIGNATURE_HEADER]: sig },
    });
    expect(tampered.status).toBe(401);
    expect((await song(songId)).status).toBe("VERIFICATION_POSTPONED");
    // Forged URLs: another song's signature, a changed expiry.
    const other = new URL(job.sourceUrl);
    other.searchParams.set("exp", String(Number(other.searchParams.get("exp")) + 1));
    expect((await SELF.fetch(other.href)).status).toBe(403);

    const first = await playTranscoder(job);
    expect(first.report.body).toEqual({ songId, status: "VERIFIED" });
    const settled = await song(songId);
    // The same report twice at once, again later, and a late ERROR: nothing changes.
    const again = await Promise.all([
      transcoderReport({ songId, status: "COMPLETE", mp3Key: first.mp3Key }),
      transcoderReport({ songId, status: "COMPLETE", mp3Key: first.mp3Key }),
      transcoderReport({ songId, status: "ERROR", detail: "late" }),
    ]);
    for (const r of again) expect(r.body).toEqual({ songId, status: "VERIFIED" });
    expect(await song(songId)).toEqual(settled);
    // The rendition cannot be replaced after the fact either.
    const put = await SELF.fetch(job.renditionUrl, { method: "PUT", body: mp3(3) });
    expect(put.status).toBe(409);
  });

  it("two racing COMPLETE reports for a waiting song settle it once", async () => {
    const a = await signUp();
    const t = stubTranscoder();
    const songId = await uploadFlac(a, { trackName: "Race", artistName: "Twice" });
    await deliver(songId);
    const job = t.jobs.find((j) => j.job.songId === songId)!.job;
    const put = await SELF.fetch(job.renditionUrl, { method: "PUT", body: RENDITION });
    const { mp3Key } = (await put.json()) as { mp3Key: string };
    const both = await Promise.all(
      [0, 1].map(() => transcoderReport({ songId, status: "COMPLETE", mp3Key })),
    );
    expect(both.map((r) => r.body.status)).toEqual(["VERIFIED", "VERIFIED"]);
    expect((await song(songId)).status).toBe("VERIFIED");
  });

  it("retries a transcoder that cannot be reached, then fails the song saying so", async () => {
    const a = await signUp();
    stubTranscoder(() => new Response("down", { status: 503 }));
    const songId = await uploadFlac(a, { trackName: "Down", artistName: "Stream" });
    const first = await deliver(songId);
    expect(first.retryMessages).toHaveLength(1);
    expect((await song(songId)).status).toBe("VERIFICATION_POSTPONED");
    const last = await deliver(songId, MAX_ATTEMPTS);
    expect(last.explicitAcks).toHaveLength(1);
    expect((await svc(`/songs/${songId}`, { token: a.token })).body).toMatchObject({
      status: "VERIFICATION_ERROR",
      detail: UPLOAD_MSG.transcoderUnreachable,
    });
  });
});

describe("without a transcoder", () => {
  const upload = (a: TestAccount, over: Partial<Env>, bytes: Uint8Array<ArrayBuffer> = FLAC) =>
    api.request(
      "/api/upload-service/upload/song",
      {
        method: "POST",
        headers: { Authorization: `Bearer ${a.token}` },
        body: songForm(bytes, {}, "tone.flac", "audio/flac"),
      },
      { ...env, ...over } as Env,
    );

  it("refuses WAV, FLAC, Ogg and M4A with 415 and a clear message, keeping nothing; MP3 still works", async () => {
    const a = await signUp();
    const count = async () => (await db(env).select().from(songs).all()).length;
    const before = await count();
    const res = await upload(a, { TRANSCODER_URL: undefined });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toBe(
      UPLOAD_MSG.needsTranscoder("FLAC"),
    );
    // The local transcoder configured but not running (or without ffmpeg): 415 too.
    stubFetch([
      ["http://127.0.0.1:9/health", () => json({ ok: true, ffmpeg: false })],
      ["http://127.0.0.1:10/health", () => Promise.reject(new TypeError("connection refused"))],
    ]);
    expect((await upload(a, { TRANSCODER_URL: "http://127.0.0.1:9" })).status).toBe(415);
    expect((await upload(a, { TRANSCODER_URL: "http://127.0.0.1:10" })).status).toBe(415);
    expect(await count()).toBe(before);
    const ok = await upload(a, { TRANSCODER_URL: undefined }, mp3(3, namedTag("Still", "Fine")));
    expect(ok.status).toBe(201);
  });

  it("accepts them when the local transcoder answers its health check with ffmpeg", async () => {
    const a = await signUp();
    stubFetch([["http://127.0.0.1:11/health", () => json({ ok: true, ffmpeg: true })]]);
    const res = await upload(a, { TRANSCODER_URL: "http://127.0.0.1:11" });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: string }).status).toBe("VERIFICATION_POSTPONED");
  });
});

describe("the stale-upload sweeper (cron)", () => {
  const PART = 5 * 1024 * 1024;

  /** What a Worker that died mid-upload leaves: a PENDING row, its song_uploads row and an open multipart upload. */
  async function deadUpload(ownerUuid: string, age: number) {
    const songId = crypto.randomUUID();
    const key = `songs/${songId}/original`;
    const mpu = await env.UPLOADS.createMultipartUpload(key);
    const part = await mpu.uploadPart(1, new Uint8Array(PART));
    const at = Date.now() - age;
    const row = await db(env)
      .insert(songs)
      .values({
        songId,
        songShortId: songId.replace(/-/g, "").slice(0, 10),
        ownerUuid,
        musicProviders: { uploadService: songId },
        status: "PENDING_UPLOAD",
        createdAt: at,
        updatedAt: at,
      })
      .returning()
      .get();
    await db(env)
      .insert(songUploads)
      .values({ songId: row.id, r2Key: key, uploadId: mpu.uploadId, createdAt: at });
    return { songId, key, uploadId: mpu.uploadId, part };
  }

  const runCron = async () => {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  };

  /** Whether the multipart upload can still be completed (an aborted one cannot). */
  const completes = async (u: { key: string; uploadId: string; part: R2UploadedPart }) =>
    env.UPLOADS.resumeMultipartUpload(u.key, u.uploadId)
      .complete([u.part])
      .then(
        () => true,
        () => false,
      );

  it("remembers an upload's R2 multipart id while its bytes stream, and forgets it once stored", async () => {
    const a = await signUp();
    const boundary = "----mid-upload";
    const enc = new TextEncoder();
    const chunk = mp3Frames(Math.ceil((64 * 1024) / FRAME_BYTES));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sent = 0;
    let stage = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        if (stage === 0) {
          ctl.enqueue(
            enc.encode(
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
            ),
          );
          stage = 1;
        } else if (stage === 1) {
          ctl.enqueue(chunk);
          sent += chunk.length;
          // Past one R2 part (5 MiB): the multipart upload is open. Then hold, as a
          // Worker that died here would leave it.
          if (sent > PART + 2 * chunk.length) {
            await gate;
            stage = 2;
          }
        } else {
          ctl.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
          ctl.close();
        }
      },
    });
    const done = SELF.fetch("http://hangout.test/api/upload-service/upload/song", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${a.token}`,
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
      },
      body,
      // @ts-expect-error: undici's streaming-body flag, unknown to the Workers types
      duplex: "half",
    });
    const inFlight = await vi.waitFor(
      async () => {
        const row = await db(env)
          .select({ upload: songUploads, status: songs.status, songId: songs.songId })
          .from(songUploads)
          .innerJoin(songs, eq(songs.id, songUploads.songId))
          .where(eq(songs.ownerUuid, a.uuid))
          .get();
        if (!row?.upload.uploadId) throw new Error("no multipart upload recorded yet");
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(inFlight.status).toBe("PENDING_UPLOAD");
    expect(inFlight.upload.r2Key).toBe(`songs/${inFlight.songId}/original`);
    release();
    const res = await done;
    expect(res.status).toBe(201);
    expect(
      await db(env)
        .select()
        .from(songUploads)
        .where(eq(songUploads.r2Key, inFlight.upload.r2Key))
        .get(),
    ).toBeUndefined();
  });

  it("aborts a stale multipart upload and fails its pending row; a fresh one is left alone", async () => {
    const a = await signUp();
    const stale = await deadUpload(a.uuid, STALE_UPLOAD_MS + 60_000);
    const fresh = await deadUpload(a.uuid, 60_000);
    await runCron();

    expect((await svc(`/songs/${stale.songId}`, { token: a.token })).body).toMatchObject({
      status: "VERIFICATION_ERROR",
      detail: UPLOAD_MSG.uploadUnfinished,
    });
    expect(await completes(stale)).toBe(false);
    const staleRow = await song(stale.songId);
    expect(
      await db(env).select().from(songUploads).where(eq(songUploads.songId, staleRow.id)).get(),
    ).toBeUndefined();

    expect((await song(fresh.songId)).status).toBe("PENDING_UPLOAD");
    expect(await completes(fresh)).toBe(true);
    // The failed song can be deleted by its owner like any other.
    expect((await svc(`/songs/${stale.songId}`, { method: "DELETE", token: a.token })).status).toBe(
      200,
    );
  });

  it("fails a song the transcoder never answered for, and aborts an orphaned multipart upload", async () => {
    const a = await signUp();
    stubTranscoder();
    const waiting = await uploadFlac(a, { trackName: "Silent", artistName: "Transcoder" });
    const longAgo = Date.now() - STALE_UPLOAD_MS - 60_000;
    await db(env).update(songs).set({ updatedAt: longAgo }).where(eq(songs.songId, waiting));
    const orphan = await deadUpload(a.uuid, STALE_UPLOAD_MS + 60_000);
    // Its song was deleted while it uploaded: only song_uploads remembers the multipart upload.
    await db(env).delete(songs).where(eq(songs.songId, orphan.songId));
    await runCron();
    expect((await svc(`/songs/${waiting}`, { token: a.token })).body).toMatchObject({
      status: "VERIFICATION_ERROR",
      detail: UPLOAD_MSG.transcoderTimedOut,
    });
    expect(await completes(orphan)).toBe(false);
    // A late COMPLETE changes nothing now.
    await env.UPLOADS.put(`songs/${waiting}/rendition.mp3`, RENDITION);
    const late = await transcoderReport({
      songId: waiting,
      status: "COMPLETE",
      mp3Key: `songs/${waiting}/rendition.mp3`,
    });
    expect(late.body.status).toBe("VERIFICATION_ERROR");
  });
});

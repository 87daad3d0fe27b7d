import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../workers/app";
import type { Env } from "../workers/env";
import {
  failStuckImports,
  PARALLEL,
  runImport,
  STUCK_AFTER_MS,
} from "../workers/queues/crate-imports";
import { MSG } from "../workers/playlist-service/messages";
import { SONG_MSG } from "../workers/songs/messages";
import { newCrate, pl, seedSong, songOrder } from "./crate-helpers";
import { countRows, signUp } from "./helpers";
import { ps } from "./music-stubs";

/**
 * Issue 18: playlist import runs in the background (a Queue consumer), idempotent by
 * import key, resumable after a crash, and never "in progress" forever.
 */
const tag = () => crypto.randomUUID().slice(0, 8);
const track = (over: Record<string, unknown> = {}) => ({
  trackName: `Song ${tag()}`,
  artistName: "Importer",
  duration: 215,
  musicProviders: { spotify: `sp-${tag()}` },
  ...over,
});

/** An IMPORTS queue that records what the route sends instead of delivering it. */
function recordingQueue() {
  const sent: { importId: string }[] = [];
  const q = { send: async (body: { importId: string }) => void sent.push(body) };
  return { sent, env: { IMPORTS: q } as unknown as Partial<Env> };
}

const start = (token: string, crateUuid: string, body: unknown, over: Partial<Env>) =>
  ps(`/api/v1/playlists/${crateUuid}/tracks`, { token, body, env: over });

/** Delivers one message to the real consumer (workers/app.ts `queue`); answers ack or retry. */
async function deliver(importId: string, over: Partial<Env> = {}) {
  const batch = createMessageBatch("hangout-imports", [
    { id: `m-${tag()}`, timestamp: new Date(), attempts: 1, body: { importId } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...over } as Env);
  const r = await getQueueResult(batch, ctx);
  return { acked: r.explicitAcks.length === 1, retried: r.retryMessages.length === 1 };
}

const crateOf = async (token: string, uuid: string) => (await pl(`/crate/${uuid}`, { token })).body;

describe("POST /api/v1/playlists/{crateUuid}/tracks (background)", () => {
  it("answers 202 at once, and the consumer imports in order and reports the rest", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const known = await seedSong({ ownerUuid: null, musicProviders: { spotify: `sp-${tag()}` } });
    const q = recordingQueue();
    const tracks = [
      track(),
      track({ musicProviders: { youtube: "y" } }),
      track({
        trackName: known.trackName,
        artistName: known.artistName,
        musicProviders: known.musicProviders,
      }),
      track({ musicProviders: { uploadService: crypto.randomUUID() } }),
    ];
    const res = await start(owner.token, crate.crateUuid, { tracks }, q.env);
    expect(res.status).toBe(202);
    expect(res.body.import).toMatchObject({ status: "IN_PROGRESS", total: 4, done: 0 });
    expect(res.body.crate).toMatchObject({ importStatus: "IN_PROGRESS", crateSongsNumber: 0 });
    expect(q.sent).toEqual([{ importId: res.body.import.importId }]);
    expect(await deliver(q.sent[0].importId)).toEqual({ acked: true, retried: false });
    expect((await crateOf(owner.token, crate.crateUuid)).importStatus).toBe("COMPLETE");
    const progress = await pl(
      `/api/v1/playlists/${crate.crateUuid}/imports/${res.body.import.importId}`,
      { token: owner.token },
    );
    expect(progress.body).toMatchObject({ status: "COMPLETE", total: 4, done: 4 });
    expect(progress.body.results.map((r: { status: string }) => r.status)).toEqual([
      "IMPORTED",
      "FAILED",
      "IMPORTED",
      "FAILED",
    ]);
    expect(progress.body.results[1]).toMatchObject({
      statusCode: 400,
      message: SONG_MSG.importNoProviders,
    });
    expect(progress.body.results[3]).toMatchObject({
      statusCode: 404,
      message: SONG_MSG.importNotInCatalog,
    });
    const order = await songOrder(owner.token, `/crate/${crate.crateUuid}`);
    expect(order).toEqual([progress.body.results[0].songId, known.songId]);
    expect(progress.body.results[2]).toMatchObject({
      songId: known.songId,
      trackName: known.trackName,
    });
    // Another person cannot read its progress; an unknown id is a 404.
    expect(
      (
        await pl(`/api/v1/playlists/${crate.crateUuid}/imports/${res.body.import.importId}`, {
          token: (await signUp()).token,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await pl(`/api/v1/playlists/${crate.crateUuid}/imports/${crypto.randomUUID()}`, {
          token: owner.token,
        })
      ).body.message,
    ).toBe(MSG.importNotFound);
  });

  it("a retry with the same key is the same import: nothing is appended twice", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const q = recordingQueue();
    const body = { tracks: [track(), track()], importKey: `key-${tag()}` };
    const first = await start(owner.token, crate.crateUuid, body, q.env);
    const again = await start(owner.token, crate.crateUuid, body, q.env);
    expect(again.status).toBe(202);
    expect(again.body.import.importId).toBe(first.body.import.importId);
    // Both deliveries run (the retry re-sends an unfinished import): still two songs.
    for (const m of q.sent) await deliver(m.importId);
    expect(q.sent.length).toBe(2);
    // After completion a retry answers the finished import and sends nothing more.
    const third = await start(owner.token, crate.crateUuid, body, q.env);
    expect(third.body.import).toMatchObject({ status: "COMPLETE", done: 2 });
    expect(q.sent.length).toBe(2);
    expect((await songOrder(owner.token, `/crate/${crate.crateUuid}`)).length).toBe(2);
    // The same key for another crate is refused.
    const other = await newCrate(owner.token);
    const clash = await start(owner.token, other.crateUuid, body, q.env);
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe(MSG.importKeyReused);
  });

  it("resumes after a crash mid-import without duplicates", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const q = recordingQueue();
    const tracks = Array.from({ length: PARALLEL + 3 }, () => track());
    const res = await start(owner.token, crate.crateUuid, { tracks }, q.env);
    const importId = res.body.import.importId;
    // The Worker dies committing the second chunk (the first one is in).
    let batches = 0;
    const dying = {
      DB: {
        prepare: (query: string) => env.DB.prepare(query),
        batch: (stmts: D1PreparedStatement[]) => {
          if (++batches === 2) return Promise.reject(new Error("the isolate was killed"));
          return env.DB.batch(stmts);
        },
      },
    } as unknown as Partial<Env>;
    expect(await deliver(importId, dying)).toEqual({ acked: false, retried: true });
    const midway = await pl(`/api/v1/playlists/${crate.crateUuid}/imports/${importId}`, {
      token: owner.token,
    });
    expect(midway.body).toMatchObject({ status: "IN_PROGRESS", done: PARALLEL });
    expect((await songOrder(owner.token, `/crate/${crate.crateUuid}`)).length).toBe(PARALLEL);
    // Redelivered: it resumes at the cursor; then a duplicate delivery changes nothing.
    expect(await deliver(importId)).toEqual({ acked: true, retried: false });
    await runImport(env, importId);
    const order = await songOrder(owner.token, `/crate/${crate.crateUuid}`);
    expect(order.length).toBe(tracks.length);
    expect(new Set(order).size).toBe(tracks.length);
    expect((await crateOf(owner.token, crate.crateUuid)).importStatus).toBe("COMPLETE");
  });

  it("ends a stuck import as failed, and a crate left in progress by the old in-request import", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const legacy = await newCrate(owner.token);
    await env.DB.prepare(
      "update crates set import_status = 'IN_PROGRESS', updated_at = ? where crate_uuid = ?",
    )
      .bind(Date.now() - STUCK_AFTER_MS - 1000, legacy.crateUuid)
      .run();
    const q = recordingQueue();
    const res = await start(owner.token, crate.crateUuid, { tracks: [track()] }, q.env);
    // The consumer never comes: nothing changes before the bound, then both end FAILED.
    await failStuckImports(env);
    expect((await crateOf(owner.token, crate.crateUuid)).importStatus).toBe("IN_PROGRESS");
    await failStuckImports(env, Date.now() + STUCK_AFTER_MS + 1000);
    expect((await crateOf(owner.token, crate.crateUuid)).importStatus).toBe("FAILED");
    expect((await crateOf(owner.token, legacy.crateUuid)).importStatus).toBe("FAILED");
    const progress = await pl(
      `/api/v1/playlists/${crate.crateUuid}/imports/${res.body.import.importId}`,
      { token: owner.token },
    );
    expect(progress.body).toMatchObject({ status: "FAILED", detail: expect.any(String) });
    // A late delivery of a failed import does nothing.
    await deliver(res.body.import.importId);
    expect((await songOrder(owner.token, `/crate/${crate.crateUuid}`)).length).toBe(0);
  });

  it("marks the crate FAILED when nothing could be imported", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const q = recordingQueue();
    const res = await start(
      owner.token,
      crate.crateUuid,
      { tracks: [track({ musicProviders: {} })] },
      q.env,
    );
    await deliver(res.body.import.importId);
    expect(await crateOf(owner.token, crate.crateUuid)).toMatchObject({
      importStatus: "FAILED",
      crateSongsNumber: 0,
    });
  });

  it("is for the owner only and refuses bad input without writing or sending", async () => {
    const owner = await signUp();
    const crate = await newCrate(owner.token);
    const q = recordingQueue();
    const path = `/api/v1/playlists/${crate.crateUuid}/tracks`;
    const before = [await countRows("crate_imports"), await countRows("crate_songs")];
    const stranger = await signUp();
    expect(
      (await start(stranger.token, crate.crateUuid, { tracks: [track()] }, q.env)).status,
    ).toBe(403);
    expect((await ps(path, { body: { tracks: [track()] }, env: q.env })).status).toBe(401);
    for (const body of [
      {},
      { tracks: [] },
      { tracks: Array(101).fill(track()) },
      { tracks: [{ trackName: "" }] },
      { tracks: [track()], importKey: "k".repeat(101) },
    ])
      expect((await start(owner.token, crate.crateUuid, body, q.env)).status).toBe(400);
    expect((await start(owner.token, "nope", { tracks: [track()] }, q.env)).status).toBe(400);
    expect([await countRows("crate_imports"), await countRows("crate_songs")]).toEqual(before);
    expect(q.sent).toEqual([]);
    expect((await crateOf(owner.token, crate.crateUuid)).importStatus).toBeNull();
  });
});

import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../workers/app";
import { ENQUEUE_MUTATION, SIMILAR_QUERY } from "../workers/adapters/analysis";
import { db } from "../workers/db/client";
import { songAnalysis, type SongRow } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { RULES } from "../workers/lib/abuse-limits";
import { MSG } from "../workers/playlist-service/messages";
import { MAX_ATTEMPTS } from "../workers/queues/song-analysis";
import { STALE_QUEUED_MS } from "../workers/similar/analysis-jobs";
import { TRACK_NOT_ANALYZED } from "../shared/similar";
import { seedSong } from "./crate-helpers";
import { guestToken, signUp } from "./helpers";
import { json, ps, stubFetch } from "./music-stubs";

/**
 * Issue 18, similar tracks through the music-analysis provider (workers/adapters/analysis.ts)
 * behind the analysis queue: one job per song however many ask, trackNotAnalyzed triggers
 * the enqueue mutation, and the provider's answer ranks first once it is in. The provider
 * is stubbed at the fetch boundary.
 */
afterEach(() => vi.restoreAllMocks());

const tag = () => crypto.randomUUID().slice(0, 8);
const spotifyId = () => `sp${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;

/** An analysis provider at a unique host, and an ANALYSIS queue that records what is sent. */
function analysisEnv() {
  const url = `https://analysis-${tag()}.test/graphql`;
  const sent: { songRowId: number }[] = [];
  const over = {
    ANALYSIS_API_URL: url,
    ANALYSIS_API_KEY: "analysis-key",
    ANALYSIS: { send: async (b: { songRowId: number }) => void sent.push(b) },
  } as unknown as Partial<Env>;
  return { url, sent, over };
}

const withSpotify = (over: Partial<Parameters<typeof seedSong>[0]> = {}) =>
  seedSong({
    musicProviders: { spotify: spotifyId() },
    thumbnails: { spotify: "https://i.scdn.test/x.jpg" },
    ...over,
  });

const enqueue = (token: string | undefined, body: unknown, over: Partial<Env>) =>
  ps("/similar-tracks/enqueue", { token, body, env: over });

const similar = (token: string, songIds: string[], over: Partial<Env>) =>
  ps(`/similar-tracks?songIds=${songIds.join(",")}`, { token, env: over });

async function deliver(songRowId: number, attempts: number, over: Partial<Env>) {
  const batch = createMessageBatch("hangout-analysis", [
    { id: `m-${tag()}`, timestamp: new Date(), attempts, body: { songRowId } },
  ]);
  // The pool's queue result does not keep a retry's delay: read it off the call.
  const retry = vi.spyOn(batch.messages[0], "retry");
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...over } as Env);
  const r = await getQueueResult(batch, ctx);
  return {
    acked: r.explicitAcks.length === 1,
    retried: r.retryMessages.length === 1,
    delay: retry.mock.calls[0]?.[0]?.delaySeconds,
  };
}

const rowOf = (song: SongRow) =>
  db(env).select().from(songAnalysis).where(eq(songAnalysis.songId, song.id)).get();

/** A provider stub: `similar` answers per call (ids, or an error code); counts each operation. */
function provider(url: string, answers: (string[] | string)[]) {
  let i = 0;
  const stub = stubFetch([
    [
      url,
      async (_u, init) => {
        const { query, variables } = JSON.parse(String(init?.body));
        if (query === ENQUEUE_MUTATION)
          return json({
            data: {
              spotifyTrackEnqueue: {
                __typename: "SpotifyTrackEnqueueSuccess",
                enqueuedSpotifyTrack: { id: variables.id },
              },
            },
          });
        expect(query).toBe(SIMILAR_QUERY);
        const a = answers[Math.min(i++, answers.length - 1)];
        if (a === "500") return new Response("down", { status: 500 });
        if (typeof a === "string")
          return json({
            data: { spotifyTrack: { __typename: "SpotifyTrackError", code: a, message: a } },
          });
        return json({
          data: {
            spotifyTrack: {
              __typename: "SpotifyTrack",
              id: variables.id,
              similarTracks: {
                __typename: "SimilarTracksConnection",
                edges: a.map((id) => ({ node: { id } })),
              },
            },
          },
        });
      },
    ],
  ]);
  const ops = (name: string) =>
    stub.calls.filter((c) => c.url.href === url && (c.body ?? "").includes(name)).length;
  return {
    stub,
    similarCalls: () => ops("query SimilarTracks"),
    enqueueCalls: () => ops("mutation SpotifyTrackEnqueue"),
  };
}

describe("POST /similar-tracks/enqueue", () => {
  it("queues one job for a song however many ask at once", async () => {
    const a = analysisEnv();
    const song = await withSpotify();
    const people = await Promise.all([signUp(), signUp(), signUp()]);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        enqueue(people[i % 3].token, { songId: song.songId }, a.over),
      ),
    );
    for (const r of answers) {
      expect(r.status).toBe(202);
      expect(r.body.status).toBe("QUEUED");
    }
    expect(answers.filter((r) => r.body.enqueued)).toHaveLength(1);
    expect(a.sent).toEqual([{ songRowId: song.id }]);
    // And later asks change nothing either.
    const again = await enqueue(people[0].token, { songId: song.songId }, a.over);
    expect(again.body).toEqual({ songId: song.songId, status: "QUEUED", enqueued: false });
    expect(a.sent).toHaveLength(1);
  });

  it("re-sends a job whose message was lost, once", async () => {
    const a = analysisEnv();
    const song = await withSpotify();
    const u = await signUp();
    await enqueue(u.token, { songId: song.songId }, a.over);
    await db(env)
      .update(songAnalysis)
      .set({ updatedAt: Date.now() - STALE_QUEUED_MS - 1000 })
      .where(eq(songAnalysis.songId, song.id));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => enqueue(u.token, { songId: song.songId }, a.over)),
    );
    expect(answers.filter((r) => r.body.enqueued)).toHaveLength(1);
    expect(a.sent).toHaveLength(2);
  });

  it("a send that fails answers 503 and leaves the song for the next ask to queue", async () => {
    const a = analysisEnv();
    const song = await withSpotify();
    const u = await signUp();
    const broken = {
      ...a.over,
      ANALYSIS: {
        send: async () => {
          throw new Error("queue down");
        },
      },
    } as unknown as Partial<Env>;
    const failed = await enqueue(u.token, { songId: song.songId }, broken);
    expect(failed.status).toBe(503);
    expect(failed.body.message).toBe(MSG.analysisQueueDown);
    const again = await enqueue(u.token, { songId: song.songId }, a.over);
    expect(again.body).toMatchObject({ status: "QUEUED", enqueued: true });
    expect(a.sent).toEqual([{ songRowId: song.id }]);
  });

  it("spends the caller's budget only on new jobs, then answers 429 (a query still answers)", async () => {
    const a = analysisEnv();
    const u = await signUp();
    const limit = RULES.analysisEnqueuePerAccount.limit;
    const songs = await Promise.all(Array.from({ length: limit + 1 }, () => withSpotify()));
    // Asking again about a queued song is free.
    for (let i = 0; i < 5; i++)
      expect((await enqueue(u.token, { songId: songs[0].songId }, a.over)).status).toBe(202);
    for (const s of songs.slice(1, limit))
      expect((await enqueue(u.token, { songId: s.songId }, a.over)).body.enqueued).toBe(true);
    const over = await enqueue(u.token, { songId: songs[limit].songId }, a.over);
    expect(over.status).toBe(429);
    const q = await similar(u.token, [songs[limit].songId], a.over);
    expect(q.status).toBe(200);
    expect(q.body.analysis).toEqual({ status: "NOT_ANALYZED", code: TRACK_NOT_ANALYZED });
    expect(a.sent).toHaveLength(limit);
  });

  it("refuses what it cannot analyse, and callers without an account", async () => {
    const a = analysisEnv();
    const u = await signUp();
    const song = await withSpotify();
    const noSpotify = await seedSong({ musicProviders: { apple: "123" } });
    expect((await enqueue(undefined, { songId: song.songId }, a.over)).status).toBe(401);
    expect((await enqueue(await guestToken(), { songId: song.songId }, a.over)).status).toBe(403);
    const bad = await enqueue(u.token, { songId: "nope" }, a.over);
    expect(bad.status).toBe(400);
    expect((await enqueue(u.token, {}, a.over)).status).toBe(400);
    expect((await enqueue(u.token, { songId: crypto.randomUUID() }, a.over)).status).toBe(404);
    const unsupported = await enqueue(u.token, { songId: noSpotify.songId }, a.over);
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.message).toBe(MSG.analysisUnsupported);
    const off = await enqueue(u.token, { songId: song.songId }, {});
    expect(off.status).toBe(503);
    expect(off.body.message).toBe(MSG.analysisOff);
    expect(a.sent).toHaveLength(0);
    expect(await rowOf(song)).toBeUndefined();
  });
});

describe("similar tracks through the analysis provider", () => {
  it("a seed not analysed answers locally with trackNotAnalyzed and queues it once", async () => {
    const a = analysisEnv();
    const seed = await withSpotify({ artistName: `Local ${tag()}` });
    const local = await seedSong({ artistName: seed.artistName });
    const first = await similar((await signUp()).token, [seed.songId], a.over);
    expect(first.status).toBe(200);
    expect(first.body.analysis).toEqual({ status: "QUEUED", code: TRACK_NOT_ANALYZED });
    expect(first.body.songs.map((s: { songId: string }) => s.songId)).toContain(local.songId);
    await similar((await signUp()).token, [seed.songId], a.over);
    expect(a.sent).toEqual([{ songRowId: seed.id }]);
  });

  it("the consumer enqueues on trackNotAnalyzed, retries, and stores the answer; it then ranks first", async () => {
    const a = analysisEnv();
    const seed = await withSpotify({ artistName: `Seed ${tag()}` });
    const sameArtist = await seedSong({ artistName: seed.artistName });
    const best = await withSpotify();
    const second = await withSpotify();
    const noArt = await withSpotify({ thumbnails: {} });
    const hidden = await withSpotify({ isPublic: false, ownerUuid: crypto.randomUUID() });
    const notHeld = spotifyId();
    const u = await signUp();
    expect((await enqueue(u.token, { songId: seed.songId }, a.over)).body.enqueued).toBe(true);

    const ids = [best, notHeld, noArt, hidden, second].map((s) =>
      typeof s === "string" ? s : s.musicProviders.spotify!,
    );
    const p = provider(a.url, [TRACK_NOT_ANALYZED, TRACK_NOT_ANALYZED, ids]);
    const run1 = await deliver(seed.id, 1, a.over);
    expect(run1).toMatchObject({ acked: false, retried: true });
    expect(run1.delay).toBeGreaterThan(0);
    const run2 = await deliver(seed.id, 2, a.over);
    expect(run2.retried).toBe(true);
    // The enqueue mutation went out once, not on every run.
    expect(p.enqueueCalls()).toBe(1);
    expect((await rowOf(seed))?.status).toBe("QUEUED");
    expect(p.stub.calls[0].headers.get("Authorization")).toBe("Bearer analysis-key");

    expect(await deliver(seed.id, 3, a.over)).toMatchObject({ acked: true, retried: false });
    expect(await rowOf(seed)).toMatchObject({ status: "ANALYZED", similar: ids });
    // A redelivery of the same message does not ask the provider again.
    const before = p.similarCalls();
    expect((await deliver(seed.id, 1, a.over)).acked).toBe(true);
    expect(p.similarCalls()).toBe(before);

    const res = await similar((await signUp()).token, [seed.songId], a.over);
    expect(res.body.analysis).toEqual({ status: "ANALYZED", code: null });
    const got = res.body.songs.map((s: { songId: string }) => s.songId);
    expect(got.slice(0, 2)).toEqual([best.songId, second.songId]);
    expect(res.body.songs[0].reasons).toEqual(["analysis"]);
    // Seed 001: the provider's tracks without artwork are dropped (a filler may still offer
    // them from our own data); ones we do not hold or may not show never appear.
    const fromAnalysis = res.body.songs
      .filter((s: { reasons: string[] }) => s.reasons.includes("analysis"))
      .map((s: { songId: string }) => s.songId);
    expect(fromAnalysis).toEqual([best.songId, second.songId]);
    expect(got).toContain(sameArtist.songId);
    expect(got).not.toContain(hidden.songId);
    expect(fromAnalysis).not.toContain(noArt.songId);
    expect(a.sent).toHaveLength(1);
  });

  it("a failing provider is retried with backoff and the job ends FAILED after its attempts", async () => {
    const a = analysisEnv();
    const seed = await withSpotify();
    const u = await signUp();
    await enqueue(u.token, { songId: seed.songId }, a.over);
    provider(a.url, ["500"]);
    const r1 = await deliver(seed.id, 1, a.over);
    const r2 = await deliver(seed.id, 2, a.over);
    expect(r1.retried && r2.retried).toBe(true);
    expect(r2.delay!).toBeGreaterThan(r1.delay!);
    expect((await rowOf(seed))?.status).toBe("QUEUED");
    expect(await deliver(seed.id, MAX_ATTEMPTS, a.over)).toMatchObject({ acked: true });
    expect(await rowOf(seed)).toMatchObject({ status: "FAILED" });
    // A failed job is not re-queued by the next ask (only after a day).
    const again = await enqueue(u.token, { songId: seed.songId }, a.over);
    expect(again.body).toMatchObject({ status: "FAILED", enqueued: false });
    expect(a.sent).toHaveLength(1);
  });

  it("a provider code other than trackNotAnalyzed ends the job without retrying", async () => {
    const a = analysisEnv();
    const seed = await withSpotify();
    await enqueue((await signUp()).token, { songId: seed.songId }, a.over);
    provider(a.url, ["trackNotFound"]);
    expect(await deliver(seed.id, 1, a.over)).toMatchObject({ acked: true, retried: false });
    expect(await rowOf(seed)).toMatchObject({ status: "FAILED" });
  });

  it("a malformed message is dropped, not retried forever", async () => {
    const batch = createMessageBatch("hangout-analysis", [
      { id: `m-${tag()}`, timestamp: new Date(), attempts: 1, body: { songRowId: "x" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as Env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
  });
});

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { recentSongPlays } from "../workers/db/schema";
import { accountWithRoles, admin, guestToken, signUp } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

/** Seeds one recorded play: `duration` in seconds (or anything, to test the fallback), `at` its start. */
async function play(slug: string, at: number, duration: unknown) {
  await db(env)
    .insert(recentSongPlays)
    .values({
      playId: crypto.randomUUID(),
      roomSlug: slug,
      song: { trackName: "t", artistName: "a", duration },
      voteCounts: { likes: 0, dislikes: 0, stars: 0 },
      djUuid: crypto.randomUUID(),
      playedAt: at,
    });
}

// A time far from any other test's plays, so totals over a range see only this file's rows.
const base = 4_000_000_000_000 + Math.floor(Math.random() * 1e9);

describe("GET /rooms/room-played-time/{id}", () => {
  it("sums durations, cut at the next play's start; a play without a duration counts the gap; the last without one counts 0", async () => {
    const r = await createRoom(await signUp());
    await play(r.slug, base, 200); // full: the next starts 300 s later
    await play(r.slug, base + 300_000, 200); // skipped after 50 s
    await play(r.slug, base + 350_000, "n/a"); // no duration: the 100 s gap
    await play(r.slug, base + 450_000, 180); // last, full
    await play(r.slug, base + 460_000 + 180_000, null); // last without a duration: 0
    await play(`${r.slug}-other`, base, 999); // another room's play is not counted
    const res = await room(`/rooms/room-played-time/${r.id}`, { token: await guestToken() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      roomUuid: r.uuid,
      slug: r.slug,
      playedSeconds: 200 + 50 + 100 + 180,
      plays: 5,
    });
    expect(
      (
        await room(`/rooms/room-played-time/${r.slug.toUpperCase()}`, {
          token: (await signUp()).token,
        })
      ).body.playedSeconds,
    ).toBe(530);
  });

  it("0 for a room that never played; 404 unknown; 400 an over-long id; 401 without a token", async () => {
    const r = await createRoom(await signUp());
    const token = await guestToken();
    expect((await room(`/rooms/room-played-time/${r.uuid}`, { token })).body).toEqual({
      roomUuid: r.uuid,
      slug: r.slug,
      playedSeconds: 0,
      plays: 0,
    });
    expect((await room("/rooms/room-played-time/no-such-room-here", { token })).status).toBe(404);
    expect((await room(`/rooms/room-played-time/${"x".repeat(65)}`, { token })).status).toBe(400);
    expect((await room(`/rooms/room-played-time/${r.uuid}`)).status).toBe(401);
  });
});

describe("GET /info-admin/played-seconds", () => {
  it("totals over every room in [from, to); a cut play still ends at the next start", async () => {
    const [a, b] = [await createRoom(await signUp()), await createRoom(await signUp())];
    const t0 = base + 10_000_000;
    await play(a.slug, t0, 100);
    await play(a.slug, t0 + 40_000, 100); // 100 s, but cut at the next play: 40 s for the first
    await play(b.slug, t0 + 1_000, 60);
    await play(b.slug, t0 + 10_000_000, 60); // outside `to`
    const who = await admin();
    const res = await room(`/info-admin/played-seconds?from=${t0}&to=${t0 + 1_000_000}`, {
      token: who.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      playedSeconds: 40 + 100 + 60,
      plays: 3,
      rooms: 2,
      from: t0,
      to: t0 + 1_000_000,
    });
    const all = await room("/info-admin/played-seconds", { token: who.token });
    expect(all.body.plays).toBeGreaterThanOrEqual(4);
  });

  it("400 for bad or reversed bounds; 401 without a token; 403 for a user or a global moderator", async () => {
    const who = await admin();
    for (const q of ["from=yesterday", "to=-5", "from=1.5", "from=10&to=5"])
      expect((await room(`/info-admin/played-seconds?${q}`, { token: who.token })).status, q).toBe(
        400,
      );
    expect((await room("/info-admin/played-seconds")).status).toBe(401);
    expect(
      (await room("/info-admin/played-seconds", { token: (await signUp()).token })).status,
    ).toBe(403);
    expect(
      (
        await room("/info-admin/played-seconds", {
          token: (await accountWithRoles(["user", "globalModerator"])).token,
        })
      ).status,
    ).toBe(403);
  });
});

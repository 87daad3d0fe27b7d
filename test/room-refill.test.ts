import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../shared/protocol";
import { db } from "../workers/db/client";
import { crateSongs } from "../workers/db/schema";
import { specialCrate } from "../workers/crates/crate-repo";
import { addSongs, newCrate, pl, seedSongs } from "./crate-helpers";
import { signUp } from "./helpers";
import {
  applySettings,
  connect,
  newRoom,
  runAlarm,
  seedQueue,
  takeSeat,
  type RoomClient,
} from "./room-helpers";

/**
 * A DJ's queue running low (issue 20): the room refills it from the crate they chose, or
 * tells them in time; only a queue with nothing to play after both drops them, told so.
 */

type Notice = Extract<ServerMessage, { name: "queueNotice" }>;
const notices = (c: RoomClient) =>
  c.messages.filter((m): m is Notice => m.name === "queueNotice").map((m) => m.params.kind);
const queueSize = async (uuid: string) => {
  const q = await specialCrate(env, uuid, "queue");
  return (await db(env).select().from(crateSongs).where(eq(crateSongs.crateId, q.id)).all()).length;
};

describe("The refill setting (/crate/queue/refill)", () => {
  it("takes only the caller's own ordinary crate; 401 without a token, 400 for a bad id", async () => {
    const me = await signUp();
    const other = await signUp();
    const mine = await newCrate(me.token, { crateName: "Warm-up" });
    const theirs = await newCrate(other.token, { crateName: "Not yours" });
    const queue = await specialCrate(env, me.uuid, "queue");

    expect((await pl("/crate/queue/refill", { token: me.token })).body).toEqual({
      crateUuid: null,
      crateName: null,
    });
    const set = await pl("/crate/queue/refill", {
      method: "PUT",
      token: me.token,
      body: { crateUuid: mine.crateUuid },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ crateUuid: mine.crateUuid, crateName: "Warm-up" });

    for (const crateUuid of [theirs.crateUuid, queue.crateUuid, crypto.randomUUID()]) {
      const r = await pl("/crate/queue/refill", {
        method: "PUT",
        token: me.token,
        body: { crateUuid },
      });
      expect(r.status).toBe(404);
      expect(r.body.message).toMatch(/your own crates/);
    }
    const bad = await pl("/crate/queue/refill", {
      method: "PUT",
      token: me.token,
      body: { crateUuid: "x".repeat(5000) },
    });
    expect(bad.status).toBe(400);
    expect(
      (await pl("/crate/queue/refill", { method: "PUT", body: { crateUuid: mine.crateUuid } }))
        .status,
    ).toBe(401);
    // The refused calls changed nothing.
    expect((await pl("/crate/queue/refill", { token: me.token })).body.crateUuid).toBe(
      mine.crateUuid,
    );
    // Deleting the crate deletes the choice.
    expect(
      (await pl(`/crate/${mine.crateUuid}`, { method: "DELETE", token: me.token })).status,
    ).toBeLessThan(300);
    expect((await pl("/crate/queue/refill", { token: me.token })).body.crateUuid).toBeNull();
    const again = await newCrate(me.token, { crateName: "Again" });
    await pl("/crate/queue/refill", {
      method: "PUT",
      token: me.token,
      body: { crateUuid: again.crateUuid },
    });
    expect((await pl("/crate/queue/refill", { method: "DELETE", token: me.token })).status).toBe(
      204,
    );
    expect((await pl("/crate/queue/refill", { token: me.token })).body.crateUuid).toBeNull();
  });
});

describe("Room: a queue running low", () => {
  it("with a crate chosen, the queue is refilled as the DJ's song starts, and they play on", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 }); // repeat window: 60 minutes
    const dj = await signUp();
    await seedQueue(dj.uuid, 1);
    const crate = await newCrate(dj.token, { crateName: "Refill" });
    const extra = await seedSongs(3, { duration: 200 });
    await addSongs(dj.token, `/crate/${crate.crateUuid}`, extra);
    await pl("/crate/queue/refill", {
      method: "PUT",
      token: dj.token,
      body: { crateUuid: crate.crateUuid },
    });
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    const first = await d.until((s) => s.nowPlaying !== null, "first song");
    // Their one song cannot play again within the hour: the look-ahead refills now.
    const n = await d.waitFor((m): m is Notice => m.name === "queueNotice");
    expect(n.params).toEqual({ kind: "refilled", songs: 3 });
    expect(await queueSize(dj.uuid)).toBe(4);
    await runAlarm(room); // the song ends
    const second = await d.until(
      (s) => !!s.nowPlaying && s.nowPlaying.playId !== first.nowPlaying!.playId,
      "the next song",
    );
    expect(second.djs.map((x) => x.uuid)).toEqual([dj.uuid]);
    expect(extra.map((s) => s.songId)).toContain(second.nowPlaying!.song.songId);
    expect(notices(d)).not.toContain("dropped");
    d.close();
  });

  it("without one, the DJ is warned while their song plays, then leaves told why; the line moves", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0, numberOfDjs: 1 });
    const dj = await signUp();
    await seedQueue(dj.uuid, 1);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await d.until((s) => s.nowPlaying !== null, "song");
    await d.waitFor((m) => m.name === "queueNotice");
    expect(notices(d)).toEqual(["empty"]);
    const fan = await signUp();
    await seedQueue(fan.uuid, 1);
    const f = await connect(room, fan);
    f.send({ action: "joinWaitlist" });
    await f.until((s) => s.waitlist.includes(fan.uuid), "waiting");

    await runAlarm(room); // the song ends: nothing else can play
    const s = await f.until((st) => st.nowPlaying?.djUuid === fan.uuid, "the fan plays");
    expect(s.djs.map((x) => x.uuid)).toEqual([fan.uuid]);
    await d.waitFor((m) => m.name === "queueNotice" && m.params.kind === "dropped");
    expect(notices(d)).toEqual(["empty", "dropped"]);
    await f.waitFor((m) => m.name === "seatedFromWaitlist");
    d.close();
    f.close();
  });

  it("a crate chosen after the warning still refills on the DJ's turn", async () => {
    const room = newRoom();
    await applySettings(room, { autoSkipRatio: 0 });
    const dj = await signUp();
    await seedQueue(dj.uuid, 1);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await d.until((s) => s.nowPlaying !== null, "song");
    await d.waitFor((m) => m.name === "queueNotice");
    const crate = await newCrate(dj.token, { crateName: "Late" });
    await addSongs(dj.token, `/crate/${crate.crateUuid}`, await seedSongs(2));
    await pl("/crate/queue/refill", {
      method: "PUT",
      token: dj.token,
      body: { crateUuid: crate.crateUuid },
    });
    await runAlarm(room);
    await d.waitFor((m) => m.name === "queueNotice" && m.params.kind === "refilled");
    const s = await d.until((st) => st.nowPlaying !== null, "plays on");
    expect(s.djs.map((x) => x.uuid)).toEqual([dj.uuid]);
    expect(notices(d)).toEqual(["empty", "refilled"]);
    d.close();
  });
});

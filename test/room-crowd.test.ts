import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ROOM_SHOWN_USERS } from "../shared/protocol";
import { crowd, crowdUuid, type CrowdResult } from "../durable/room/crowd";
import { roomService } from "../workers/room-service";
import { admin, call, signUp } from "./helpers";
import { djPlaying, newRoom, stub } from "./room-helpers";

/**
 * The bench's synthetic crowd (issue 11 "Measured"): POST /api/room-service/dev/rooms/{uuid}/crowd
 * fills a room with users and votes as sockets' votes do, for bench/rooms.bench.mjs to time.
 * It must not exist where it could fill a real room: production answers 404, and only an
 * admin may call it anywhere.
 */
const path = (room: string) => `/dev/rooms/${room}/crowd`;
const crowdCall = (room: string, token: string | undefined, body: unknown) =>
  call("room-service", path(room), { token, body });

describe("POST /dev/rooms/{uuid}/crowd (the bench's synthetic crowd)", () => {
  it("is for an admin or the service key (401 without, 403 for a plain user); in production it does not exist (404)", async () => {
    const room = newRoom();
    expect((await crowdCall(room, undefined, { fill: 5 })).status).toBe(401);
    const plain = await signUp();
    expect((await crowdCall(room, plain.token, { fill: 5 })).status).toBe(403);
    const wrongKey = await call("room-service", path(room), {
      headers: { "X-Service-Key": "not-the-key" },
      body: { fill: 5 },
    });
    expect(wrongKey.status).toBe(401);
    const boss = await admin();
    expect((await crowdCall(room, boss.token, { fill: -1 })).status).toBe(400);
    expect((await crowdCall("not-a-uuid", boss.token, { fill: 5 })).status).toBe(400);

    // The same app with ENVIRONMENT=production (what wrangler.toml deploys): no such route,
    // for the admin, the service key and anyone.
    const asAdmin = { Authorization: `Bearer ${boss.token}` };
    const byKey = { "X-Service-Key": env.SERVICE_KEY! };
    for (const auth of [asAdmin, byKey, {}]) {
      const res = await roomService.request(
        path(room),
        {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify({ fill: 5 }),
        },
        { ...env, ENVIRONMENT: "production" },
      );
      expect(res.status).toBe(404);
    }
    // Nobody was added by any of these.
    expect(await stub(room).getUserUuids()).toEqual([]);
    // The service key (what the bench sends) is let in, as an admin's token is.
    const keyed = await call("room-service", path(room), { headers: byKey, body: { fill: 5 } });
    expect(keyed.status).toBe(200);
    expect(keyed.body).toMatchObject({ added: 5, synthetic: 5, present: 5 });
    // The object refuses too, whoever reaches it (it throws before touching anything).
    const none = null as never;
    expect(() => crowd({ ENVIRONMENT: "production" }, none, none, none, none, { fill: 5 })).toThrow(
      /development and test only/,
    );
  });

  it("fills the room with present users and runs K votes as sockets' votes: the counts move by K and every socket hears it", async () => {
    const room = newRoom();
    const { d } = await djPlaying(room);
    const boss = await admin();

    const filled = await crowdCall(room, boss.token, { fill: 1000, state: true });
    expect(filled.status).toBe(200);
    const f = filled.body as CrowdResult;
    expect(f).toMatchObject({ synthetic: 1000, added: 1000, present: 1001, voted: 0 });
    // They are present users: the room lists them and every socket learns of them.
    const present = await stub(room).getUserUuids();
    expect(present).toHaveLength(1001);
    expect(present).toContain(crowdUuid(999));
    const s = await d.until((x) => x.userCount === 1001, "the crowd in the DJ's state");
    expect(s.allUsers).toHaveLength(ROOM_SHOWN_USERS);
    // The size answered is the roomState frame a joiner gets: the state every client holds.
    const frame = JSON.stringify({ name: "roomState", state: s, seq: d.seq, serverTime: 1e12 });
    expect(f.fullStateBytes).toBe(new TextEncoder().encode(frame).length);
    expect(f.seq).toBe(d.seq);

    // Filling to the same number again adds nobody.
    expect((await crowdCall(room, boss.token, { fill: 1000 })).body).toMatchObject({
      added: 0,
      synthetic: 1000,
    });

    // 0 votes: nothing moves, no frame.
    const none = (await crowdCall(room, boss.token, { votes: { from: 0, count: 0 } }))
      .body as CrowdResult;
    expect(none).toMatchObject({ voted: 0, refused: 0, seq: d.seq });
    expect(none.voteCounts).toEqual({ likes: 0, dislikes: 0, stars: 0 });

    // K votes by K distinct users (like, dislike, ...): the counts move by K, in one frame.
    const k = 300;
    const a = (await crowdCall(room, boss.token, { votes: { from: 0, count: k } }))
      .body as CrowdResult;
    expect(a).toMatchObject({ voted: k, refused: 0, refusal: null, seq: none.seq + 1 });
    expect(a.voteCounts).toEqual({ likes: k / 2, dislikes: k / 2, stars: 0 });
    await d.until((x) => x.voteCounts.likes === k / 2 && x.voteCounts.dislikes === k / 2, "votes");
    expect(d.seq).toBe(a.seq);
    // Each like owes the DJ points (the outbox); `settle` answers once they are sent.
    const settled = await crowdCall(room, boss.token, { settle: true });
    expect(settled.body).toMatchObject({ voted: 0, seq: a.seq });
    const owed = await runInDurableObject(
      stub(room),
      (_o, state) => state.storage.sql.exec(`SELECT 1 FROM room_effects`).toArray().length,
    );
    expect(owed).toBe(0);

    // The next K users: the counts move by K again.
    const b = (await crowdCall(room, boss.token, { votes: { from: k, count: k } }))
      .body as CrowdResult;
    expect(b.voted).toBe(k);
    expect(b.voteCounts).toEqual({ likes: k, dislikes: k, stars: 0 });
    // The same users voting the same again: a vote sent twice counts once.
    const again = (await crowdCall(room, boss.token, { votes: { from: k, count: k } }))
      .body as CrowdResult;
    expect(again.voteCounts).toEqual(b.voteCounts);
    // The next round: the same users change their votes (like for dislike), each a vote.
    const flip = (await crowdCall(room, boss.token, { votes: { from: 0, count: 3, round: 1 } }))
      .body as CrowdResult;
    expect(flip.voted).toBe(3);
    expect(flip.voteCounts).toEqual({ likes: k - 1, dislikes: k + 1, stars: 0 });
    await d.until((x) => x.voteCounts.likes === k - 1 && x.voteCounts.dislikes === k + 1, "flips");
    expect(d.breaches).toEqual([]);
    d.close();
  });
});

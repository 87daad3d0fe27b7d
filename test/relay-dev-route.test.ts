import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { roomService } from "../workers/room-service";
import { admin, call, signUp } from "./helpers";
import { connect, ensureRoom, newRoom, person } from "./room-helpers";

/**
 * The stadium bench's dev route (issue 19): GET/POST /dev/rooms/{uuid}/relays sets a room's
 * relay threshold and answers its fan-out figures. Only an admin or the service key, and not
 * at all in production: a threshold of 1 would send a real room's audience through relays.
 */
const path = (room: string) => `/dev/rooms/${room}/relays`;

describe("/dev/rooms/{uuid}/relays (the stadium bench's figures)", () => {
  it("refuses a missing token (401) and a plain user (403); does not exist in production (404)", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const body = { threshold: 1, perRelay: 10 };
    expect((await call("room-service", path(room), { body })).status).toBe(401);
    const plain = await signUp();
    expect((await call("room-service", path(room), { token: plain.token, body })).status).toBe(403);
    expect((await call("room-service", path(room), { token: plain.token })).status).toBe(403);
    const byKey = { "X-Service-Key": env.SERVICE_KEY! };
    const res = await roomService.request(
      path(room),
      {
        method: "POST",
        headers: { ...byKey, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      },
      { ...env, ENVIRONMENT: "production" },
    );
    expect(res.status).toBe(404);
    // None of these changed the room: it still takes a socket itself.
    await connect(room, await person());
    const now = await call("room-service", path(room), { headers: byKey });
    expect(now.body).toMatchObject({ room: { held: 1, relayed: 0, assigned: 0 } });
  });

  it("an admin sets the threshold; bad values are a 400; the figures show the relay and its sockets", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const boss = await admin();
    for (const bad of [{ threshold: 0, perRelay: 10 }, { threshold: 1, perRelay: 1e9 }, {}])
      expect(
        (await call("room-service", path(room), { token: boss.token, body: bad })).status,
      ).toBe(400);
    const set = await call("room-service", path(room), {
      token: boss.token,
      body: { threshold: 1, perRelay: 10 },
    });
    expect(set.status).toBe(200);
    const a = await connect(room, await person());
    const b = await connect(room, await person());
    const got = await call("room-service", path(room), { token: boss.token });
    expect(got.body).toMatchObject({
      room: { config: { threshold: 1, perRelay: 10 }, held: 1, relayed: 1, links: 1, assigned: 1 },
      relays: [{ sockets: 1, live: 1 }],
    });
    a.close();
    b.close();
  });
});

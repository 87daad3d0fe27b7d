import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { devices, djFans } from "../workers/db/schema";
import {
  consumeFansMessage,
  FANOUT_PAGE,
  fansMessageFor,
} from "../workers/queues/fan-notifications";
import { admin, signUp, type TestAccount } from "./helpers";
import { recordingQueue, rowsOf, SERVICE } from "./notify-helpers";
import {
  applySettings,
  connect,
  ensureRoom,
  newRoom,
  seedQueue,
  takeSeat,
  type RoomPerson,
} from "./room-helpers";
import { follow, social } from "./social-helpers";

/**
 * A DJ's fans hear about them (issue 14): the room tells them when the DJ takes a seat, the
 * DJ can announce, and the fan-out reads fans a page at a time whatever the following.
 */
const asPerson = (a: TestAccount): RoomPerson => ({ uuid: a.uuid, token: a.token });
const djLiveRows = async (uuid: string) => (await rowsOf(uuid)).filter((r) => r.kind === "dj_live");

/** `n` fans of `djUuid` written straight to D1 (the follow route is tested elsewhere). */
async function fans(djUuid: string, n: number): Promise<string[]> {
  const list = Array.from({ length: n }, () => crypto.randomUUID());
  for (let i = 0; i < list.length; i += 20)
    await db(env)
      .insert(djFans)
      .values(
        list.slice(i, i + 20).map((userUuid) => ({ djUuid, userUuid, createdAt: Date.now() })),
      )
      .run();
  return list;
}

describe("the room tells a DJ's fans", () => {
  it("taking a seat in a public room reaches each fan's notification centre once an hour", async () => {
    const [dj, fan, stranger] = [await signUp(), await signUp(), await signUp()];
    expect((await follow(fan, dj)).status).toBe(201);
    const room = newRoom();
    await ensureRoom(room);
    await applySettings(room, { name: "Lounge", slug: `lounge-${room.slice(0, 6)}` });
    await seedQueue(dj.uuid, 2);
    const c = await connect(room, asPerson(dj));
    await takeSeat(c, dj.uuid);
    await vi.waitFor(async () => expect(await djLiveRows(fan.uuid)).toHaveLength(1), {
      timeout: 10_000,
      interval: 100,
    });
    const [row] = await djLiveRows(fan.uuid);
    expect(row.title).toContain("is DJing");
    expect(row.body).toBe("in Lounge");
    expect(await djLiveRows(stranger.uuid)).toHaveLength(0);
    // Off and on the stage again within the hour: no second notification.
    c.send({ action: "removeDj" });
    await c.until((s) => !s.djs.some((d) => d.uuid === dj.uuid), "off stage");
    await takeSeat(c, dj.uuid);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await djLiveRows(fan.uuid)).toHaveLength(1);
    c.close();
  });

  it("a private or password room tells nobody", async () => {
    for (const over of [{ type: "PRIVATE" as const }, { isPasswordProtected: true }]) {
      const [dj, fan] = [await signUp(), await signUp()];
      await follow(fan, dj);
      await seedQueue(dj.uuid, 4);
      const hidden = newRoom();
      await ensureRoom(hidden);
      // The DJ owns it (an owner needs no ticket to enter their own closed room).
      await applySettings(hidden, { ...over, name: "Hidden", ownerUuid: dj.uuid });
      const h = await connect(hidden, asPerson(dj));
      await takeSeat(h, dj.uuid);
      // Then a public room: its notice is the only one (had the hidden room sent one, that
      // one would have come first and held this one by the hourly throttle).
      const open = newRoom();
      await ensureRoom(open);
      await applySettings(open, { name: "Open" });
      const o = await connect(open, asPerson(dj));
      await takeSeat(o, dj.uuid);
      await vi.waitFor(async () => expect(await djLiveRows(fan.uuid)).toHaveLength(1), {
        timeout: 10_000,
        interval: 100,
      });
      expect((await djLiveRows(fan.uuid))[0].body).toBe("in Open");
      h.close();
      o.close();
    }
  });
});

describe("the fan-out", () => {
  it(`reads fans ${FANOUT_PAGE} a page: every fan once, pages chained, a redelivered page writes nothing twice`, async () => {
    const dj = crypto.randomUUID();
    const all = await fans(dj, FANOUT_PAGE + 150);
    const q = recordingQueue();
    const first = fansMessageFor(dj, { kind: "dj_live", title: "t", body: "b" });
    await consumeFansMessage(q.env, first);
    const users = q.messages().filter((m) => m.channel === "users");
    const next = q.messages().filter((m) => (m as { channel: string }).channel === "fans");
    expect(users.flatMap((m) => m.recipients)).toHaveLength(FANOUT_PAGE);
    expect(next).toHaveLength(1);
    await consumeFansMessage(q.env, next[0] as never);
    const reached = q
      .messages()
      .filter((m) => m.channel === "users")
      .flatMap((m) => m.recipients);
    expect(new Set(reached)).toEqual(new Set(all));
    expect(reached).toHaveLength(all.length);
    // The same page again makes the same message ids: the in-app rows dedupe on them.
    const again = recordingQueue();
    await consumeFansMessage(again.env, first);
    expect(again.messages().map((m) => m.id)).toEqual([
      ...users.map((m) => m.id),
      (next[0] as { id: string }).id,
    ]);
  });

  it("a redelivered first page with a throttle key is not held by its own claim; another fan-out within the hour is", async () => {
    const dj = crypto.randomUUID();
    await fans(dj, 1);
    const n = { kind: "dj_live" as const, title: "t", body: "b", throttleKey: `dj_live:${dj}` };
    const first = fansMessageFor(dj, n);
    const sent = async (msg: typeof first) => {
      const q = recordingQueue();
      await consumeFansMessage(q.env, msg);
      return q.messages().map((m) => m.id);
    };
    const once = await sent(first);
    expect(once).toHaveLength(1);
    expect(await sent(first)).toEqual(once);
    expect(await sent(fansMessageFor(dj, n))).toEqual([]);
  });
});

describe("fan notification routes", () => {
  it("a DJ announces to their fans once an hour; another user cannot announce for them", async () => {
    const [dj, fan, other] = [await signUp(), await signUp(), await signUp()];
    await follow(fan, dj);
    const body = { title: "New set tonight", body: "9pm in Lounge" };
    expect((await social("/notifications/dj-fans", { body })).status).toBe(401);
    const res = await social("/notifications/dj-fans", { token: dj.token, body });
    expect(res.status).toBe(202);
    await vi.waitFor(
      async () => expect((await rowsOf(fan.uuid)).map((r) => r.title)).toContain("New set tonight"),
      { timeout: 10_000, interval: 100 },
    );
    const twice = await social("/notifications/dj-fans", { token: dj.token, body });
    expect(twice.status).toBe(429);
    const forOther = await social("/notifications/dj-fans", {
      token: other.token,
      body: { ...body, djUuid: dj.uuid },
    });
    expect(forOther.status).toBe(403);
    const boss = await admin();
    expect(
      (
        await social("/notifications/dj-fans", {
          token: boss.token,
          body: { ...body, djUuid: dj.uuid },
        })
      ).status,
    ).toBe(202);
    const bad = await social("/notifications/dj-fans", {
      token: other.token,
      body: { title: "x".repeat(101), body: "b" },
    });
    expect(bad.status).toBe(400);
  });

  it("the preview counts fans and sends nothing; the devices list is for services only", async () => {
    const [dj, fan, other] = [await signUp(), await signUp(), await signUp()];
    await follow(fan, dj);
    await db(env)
      .insert(devices)
      .values({ token: `tok-${crypto.randomUUID()}`, userUuid: fan.uuid, platform: "android" })
      .run();
    const preview = await social(`/dj-fans-notification?djUuid=${dj.uuid}`, { token: dj.token });
    expect(preview.body).toEqual({ djUuid: dj.uuid, fans: 1 });
    expect(await rowsOf(fan.uuid)).toHaveLength(0);
    expect(
      (await social(`/dj-fans-notification?djUuid=${dj.uuid}`, { token: other.token })).status,
    ).toBe(403);
    const path = `/dj-fans/devices/list?djUuid=${dj.uuid}`;
    expect((await social(path)).status).toBe(401);
    expect((await social(path, { token: dj.token })).status).toBe(403);
    const list = await social(path, { headers: SERVICE });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({ userUuid: fan.uuid, platform: "android" });
    expect((await social(`/dj-fans/devices/list?djUuid=nope`, { headers: SERVICE })).status).toBe(
      400,
    );
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { admin, signUp, type TestAccount } from "./helpers";
import { createRoom, room, roomName } from "./room-service-helpers";

const HOUR = 3600_000;
const at = (ms: number) => new Date(ms).toISOString();

let boss: TestAccount;
let host: TestAccount;
beforeAll(async () => {
  [boss, host] = await Promise.all([admin(), signUp()]);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function makeEvent(who: TestAccount, over: Record<string, unknown> = {}): Promise<any> {
  const start = Date.now() + 24 * HOUR;
  const res = await room("/events", {
    token: who.token,
    body: { name: roomName("Party"), startsAt: at(start), endsAt: at(start + HOUR), ...over },
  });
  if (res.status !== 201)
    throw new Error(`create event failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe("POST /events", () => {
  it("creates an event hosted by the caller, slug from the name; reads it by id, uuid and slug", async () => {
    const name = roomName("Launch Night!");
    const start = Date.now() + 2 * HOUR;
    const res = await room("/events", {
      token: host.token,
      body: { name, startsAt: at(start), endsAt: start + HOUR },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      hostUuid: host.uuid,
      roomId: null,
      communityId: null,
      startsAt: at(start),
      endsAt: at(start + HOUR),
    });
    expect(res.body.slug).toMatch(/^launch-night-[a-z0-9-]+$/);
    for (const key of [res.body.id, res.body.uuid, res.body.slug])
      expect((await room(`/events/${key}`)).body.id).toBe(res.body.id);
    expect((await room(`/events/slug/${res.body.slug.toUpperCase()}`)).body.id).toBe(res.body.id);
    expect((await room("/events/slug/no-such-event")).status).toBe(404);
    expect((await room("/events/999999999")).status).toBe(404);
  });

  it("400 for bad input, 401 without a token, 409 for a taken slug", async () => {
    const start = Date.now() + HOUR;
    const body = { name: "Gig", startsAt: at(start), endsAt: at(start + HOUR) };
    expect((await room("/events", { body })).status).toBe(401);
    expect(
      (await room("/events", { token: host.token, body: { ...body, endsAt: at(start) } })).status,
    ).toBe(400);
    expect(
      (await room("/events", { token: host.token, body: { ...body, startsAt: "tomorrow" } }))
        .status,
    ).toBe(400);
    expect(
      (await room("/events", { token: host.token, body: { ...body, startsAt: 1e20 } })).status,
    ).toBe(400);
    expect(
      (await room("/events", { token: host.token, body: { ...body, slug: "no" } })).status,
    ).toBe(400);
    expect(
      (await room("/events", { token: host.token, body: { ...body, name: undefined } })).status,
    ).toBe(400);
    expect((await room("/events", { token: host.token, body: "[1]" })).status).toBe(400);
    const e = await makeEvent(host);
    expect(
      (await room("/events", { token: host.token, body: { ...body, slug: e.slug } })).status,
    ).toBe(409);
  });

  it("an event in a room needs the room's owner or an admin (403 otherwise); an unknown room is 404", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const start = Date.now() + HOUR;
    const body = {
      name: roomName("Room gig"),
      roomId: r.id,
      startsAt: at(start),
      endsAt: at(start + HOUR),
    };
    expect((await room("/events", { token: host.token, body })).status).toBe(403);
    expect((await room("/events", { token: owner.token, body })).body.roomId).toBe(r.id);
    expect(
      (
        await room("/events", {
          token: boss.token,
          body: { ...body, name: roomName("x"), roomId: r.slug },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await room("/events", {
          token: owner.token,
          body: { ...body, name: roomName("y"), roomId: "no-such-room" },
        })
      ).status,
    ).toBe(404);
  });
});

describe("event lists", () => {
  it("/events/upcoming is soonest first and only future events; /events is newest start first", async () => {
    const base = Date.now() + 1000 * HOUR;
    const later = await makeEvent(host, {
      startsAt: at(base + 2 * HOUR),
      endsAt: at(base + 3 * HOUR),
    });
    const sooner = await makeEvent(host, {
      startsAt: at(base + HOUR),
      endsAt: at(base + 2 * HOUR),
    });
    const past = await makeEvent(host, {
      startsAt: at(Date.now() - 2 * HOUR),
      endsAt: at(Date.now() - HOUR),
    });
    const up = await room("/events/upcoming?limit=100");
    expect(up.status).toBe(200);
    const ids: number[] = up.body.data.map((e: { id: number }) => e.id);
    expect(ids).not.toContain(past.id);
    expect(ids.indexOf(sooner.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(sooner.id)).toBeLessThan(ids.indexOf(later.id));
    const starts = up.body.data.map((e: { startsAt: string }) => Date.parse(e.startsAt));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    const all = await room("/events?limit=100");
    const allStarts = all.body.data.map((e: { startsAt: string }) => Date.parse(e.startsAt));
    expect(allStarts).toEqual([...allStarts].sort((a, b) => b - a));
    expect((await room("/events?limit=0")).status).toBe(400);
    expect((await room("/events/upcoming?offset=x")).status).toBe(400);
  });
});

describe("PATCH / DELETE /events/{id}", () => {
  it("the host or an admin edits; others get 403; bad times are 400; delete removes", async () => {
    const e = await makeEvent(host);
    const other = await signUp();
    expect((await room(`/events/${e.id}`, { method: "PATCH", body: { name: "x" } })).status).toBe(
      401,
    );
    expect(
      (await room(`/events/${e.id}`, { token: other.token, method: "PATCH", body: { name: "x" } }))
        .status,
    ).toBe(403);
    expect(
      (await room(`/events/${e.id}`, { token: host.token, method: "PATCH", body: {} })).status,
    ).toBe(400);
    expect(
      (
        await room(`/events/${e.id}`, {
          token: host.token,
          method: "PATCH",
          body: { endsAt: e.startsAt },
        })
      ).status,
    ).toBe(400);
    const p = await room(`/events/${e.uuid}`, {
      token: host.token,
      method: "PATCH",
      body: { name: "Renamed", description: "d" },
    });
    expect(p.body).toMatchObject({ name: "Renamed", description: "d", slug: e.slug });
    expect(
      (
        await room(`/events/${e.id}`, {
          token: boss.token,
          method: "PATCH",
          body: { imageUrl: "https://x.test/a.png" },
        })
      ).status,
    ).toBe(200);
    expect((await room(`/events/${e.id}`, { token: other.token, method: "DELETE" })).status).toBe(
      403,
    );
    expect((await room(`/events/${e.id}`, { token: host.token, method: "DELETE" })).status).toBe(
      200,
    );
    expect((await room(`/events/${e.id}`)).status).toBe(404);
  });
});

describe("admin events", () => {
  it("lists with the crud query and reads one; 401/403 for others; 400 for a bad filter", async () => {
    const e = await makeEvent(host);
    const list = await room(`/admin/events?filter=slug||$eq||${e.slug}`, { token: boss.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, total: 1 });
    expect(list.body.data[0].id).toBe(e.id);
    expect((await room(`/admin/events/${e.slug}`, { token: boss.token })).body.id).toBe(e.id);
    expect((await room("/admin/events?filter=secret||$eq||1", { token: boss.token })).status).toBe(
      400,
    );
    expect((await room("/admin/events")).status).toBe(401);
    expect((await room("/admin/events", { token: host.token })).status).toBe(403);
    expect((await room(`/admin/events/${e.id}`, { token: host.token })).status).toBe(403);
  });
});

describe("slugs from names", () => {
  it("two events with one name both get a slug (the second with a tail)", async () => {
    const name = roomName("Same Name");
    const a = await makeEvent(host, { name });
    const b = await makeEvent(host, { name });
    expect(a.slug).not.toBe(b.slug);
    expect(b.slug.startsWith(a.slug)).toBe(true);
  });
});

describe("deleting a room", () => {
  it("drops its community links and leaves its events with roomId null (foreign keys)", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const cm = await room("/admin/communities", {
      token: boss.token,
      body: { name: roomName("Linked") },
    });
    expect(
      (
        await room(`/communities/${cm.body.id}/rooms/${r.id}`, {
          token: owner.token,
          method: "PUT",
        })
      ).status,
    ).toBe(200);
    const e = await makeEvent(owner, { roomId: r.id });
    expect(
      (await room(`/rooms/${r.id}/infrastructure`, { token: owner.token, method: "DELETE" }))
        .status,
    ).toBe(200);
    expect((await room(`/communities/${cm.body.id}/rooms`)).body.total).toBe(0);
    expect((await room(`/events/${e.id}`)).body.roomId).toBeNull();
  });
});

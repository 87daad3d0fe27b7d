import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { communities, communityMembers, djFans, events, users } from "../workers/db/schema";
import { announceStartingEvents } from "../workers/room-service/event-starts";
import { signUp } from "./helpers";
import { rowsOf } from "./notify-helpers";
import {
  applySettings,
  connect,
  ensureRoom,
  newRoom,
  person,
  seedQueue,
  takeSeat,
} from "./room-helpers";
import { handle, invite } from "./social-helpers";

/**
 * What tells people things in the product (issue 14): a friend invitation and its answer, a
 * mention in a room's chat, "you're up next" while away, an event starting.
 */
const rowsOfKind = async (uuid: string, kind: string) =>
  (await rowsOf(uuid)).filter((r) => r.kind === kind);
const eventually = (fn: () => Promise<void>) => vi.waitFor(fn, { timeout: 10_000, interval: 100 });
/** Lets the queue deliver anything still on its way before a "nothing more" check. */
const settle = () => new Promise((r) => setTimeout(r, 1500));
const nicknameOf = async (uuid: string) =>
  (await db(env).select().from(users).where(eq(users.uuid, uuid)).get())!.nickname;

describe("friends", () => {
  it("an invitation tells the invitee; accepting tells the sender, once however often it is sent", async () => {
    const [lou, kim] = [await signUp(), await signUp()];
    const sent = await invite(lou, kim);
    expect(sent.status).toBe(201);
    await eventually(async () =>
      expect(await rowsOfKind(kim.uuid, "friend_invitation")).toHaveLength(1),
    );
    expect((await rowsOfKind(kim.uuid, "friend_invitation"))[0].title).toContain(
      await nicknameOf(lou.uuid),
    );
    const answers = await Promise.all([1, 2, 3].map(() => handle(kim, sent.body.uuid)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await eventually(async () =>
      expect(await rowsOfKind(lou.uuid, "friend_accepted")).toHaveLength(1),
    );
    await settle();
    expect(await rowsOfKind(lou.uuid, "friend_accepted")).toHaveLength(1);
  });
});

describe("the room", () => {
  it("a mention tells the person named, once a minute from one sender; nobody else, never the sender", async () => {
    const room = newRoom();
    await ensureRoom(room);
    await applySettings(room, { name: "Lounge" });
    const [kim, lou, max] = [await person(), await person(), await person()];
    const [k, l, m] = [
      await connect(room, kim),
      await connect(room, lou),
      await connect(room, max),
    ];
    const louName = await nicknameOf(lou.uuid);
    const kimName = await nicknameOf(kim.uuid);
    const say = (text: string) =>
      k.send({ action: "sendChat", message: text, clientId: crypto.randomUUID() });
    say(`hey @${louName.toLowerCase()}, and @${kimName} too`);
    for (let i = 0; i < 4; i++) say(`again @${louName}!`);
    say(`@${louName}x is not lou`);
    await eventually(async () => expect(await rowsOfKind(lou.uuid, "mention")).toHaveLength(1));
    await settle();
    const [row] = await rowsOfKind(lou.uuid, "mention");
    expect(row.title).toBe(`${kimName} mentioned you in Lounge`);
    expect(row.body).toContain("hey @");
    expect(await rowsOfKind(lou.uuid, "mention")).toHaveLength(1);
    expect(await rowsOfKind(kim.uuid, "mention")).toHaveLength(0);
    expect(await rowsOfKind(max.uuid, "mention")).toHaveLength(0);
    for (const c of [k, l, m]) c.close();
  });

  it("'you're up next' reaches a DJ who is away, not one who is in the room", async () => {
    const room = newRoom();
    await ensureRoom(room);
    await applySettings(room, { autoSkipRatio: 0 });
    const [a, b, c] = [await person(), await person(), await person()];
    for (const p of [a, b, c]) await seedQueue(p.uuid, 3);
    const [sa, sb, sc] = [await connect(room, a), await connect(room, b), await connect(room, c)];
    await takeSeat(sa, a.uuid);
    await sa.until((s) => s.nowPlaying?.djUuid === a.uuid, "a playing");
    await takeSeat(sb, b.uuid);
    await takeSeat(sc, c.uuid);
    // c leaves (still on stage through the grace); a's song ends, b plays, c is next.
    sc.close();
    sa.send({ action: "skipSong" });
    await sa.until((s) => s.nowPlaying?.djUuid === b.uuid, "b playing");
    await eventually(async () => expect(await rowsOfKind(c.uuid, "up_next")).toHaveLength(1));
    // b's song ends, c plays, a is next and in the room: a hears it on the socket only.
    sb.send({ action: "skipSong" });
    await sa.until((s) => s.nowPlaying?.djUuid === c.uuid, "c playing");
    await settle();
    expect(await rowsOfKind(a.uuid, "up_next")).toHaveLength(0);
    sa.close();
    sb.close();
  });
});

describe("events", () => {
  it("an event starting tells the host's fans and its community's members, once however often the cron runs", async () => {
    const [host, fan, member, outsider] = [
      await signUp(),
      await signUp(),
      await signUp(),
      await signUp(),
    ];
    await db(env)
      .insert(djFans)
      .values({ djUuid: host.uuid, userUuid: fan.uuid, createdAt: Date.now() })
      .run();
    const [community] = await db(env)
      .insert(communities)
      .values({
        uuid: crypto.randomUUID(),
        slug: `c-${crypto.randomUUID().slice(0, 8)}`,
        name: "Crew",
        ownerUuid: host.uuid,
      })
      .returning();
    await db(env)
      .insert(communityMembers)
      .values({ communityId: community.id, userUuid: member.uuid })
      .run();
    const now = Date.now();
    await db(env)
      .insert(events)
      .values({
        uuid: crypto.randomUUID(),
        slug: `e-${crypto.randomUUID().slice(0, 8)}`,
        name: "Friday set",
        hostUuid: host.uuid,
        communityId: community.id,
        startsAt: now - 30_000,
        endsAt: now + 3_600_000,
      })
      .run();
    await announceStartingEvents(env, now);
    await announceStartingEvents(env, now + 60_000);
    await eventually(async () => {
      expect(await rowsOfKind(fan.uuid, "event_starting")).toHaveLength(1);
      expect(await rowsOfKind(member.uuid, "event_starting")).toHaveLength(1);
    });
    await settle();
    expect((await rowsOfKind(fan.uuid, "event_starting"))[0].title).toBe("Friday set is starting");
    expect(await rowsOfKind(fan.uuid, "event_starting")).toHaveLength(1);
    expect(await rowsOfKind(member.uuid, "event_starting")).toHaveLength(1);
    expect(await rowsOfKind(outsider.uuid, "event_starting")).toHaveLength(0);
    // An event that started long ago is not announced.
    expect(await rowsOfKind(host.uuid, "event_starting")).toHaveLength(0);
  });
});

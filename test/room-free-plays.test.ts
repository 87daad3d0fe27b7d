import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GUEST_FREE_PLAYS } from "../shared/rooms";
import { db } from "../workers/db/client";
import { guestPlays } from "../workers/db/schema";
import { recordGuestPlays } from "../workers/room-service/guest-plays-repo";
import {
  connect,
  newRoom,
  person,
  seedQueue,
  takeSeat,
  type RoomClient,
  type RoomPerson,
} from "./room-helpers";

/** Issue 11 / spec 001 Playback: "Guests beyond a free-play limit cannot play". */

const lastFreePlays = (c: RoomClient) =>
  (
    c.messages.filter((m) => m.name === "freePlays").at(-1) as
      { params: { used: number; limit: number } } | undefined
  )?.params ?? null;

const heardInD1 = async (uuid: string) =>
  (await db(env).select().from(guestPlays).where(eq(guestPlays.guestUuid, uuid)).get())?.plays ?? 0;

async function untilD1(uuid: string, plays: number) {
  for (let i = 0; i < 100 && (await heardInD1(uuid)) !== plays; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(await heardInD1(uuid)).toBe(plays);
}

/** A room with a DJ playing; `next()` skips to the next song and answers its playId. */
async function playingRoom(room = newRoom()) {
  const dj = await person();
  await seedQueue(dj.uuid, GUEST_FREE_PLAYS + 3);
  const d = await connect(room, dj);
  await takeSeat(d, dj.uuid);
  let playId = (await d.until((s) => s.nowPlaying !== null)).nowPlaying!.playId;
  return {
    room,
    d,
    next: async () => {
      const was = playId;
      d.send({ action: "skipSong" });
      playId = (await d.until((s) => !!s.nowPlaying && s.nowPlaying.playId !== was)).nowPlaying!
        .playId;
      return playId;
    },
  };
}

const untilUsed = (c: RoomClient, used: number) =>
  c.waitFor((m) => m.name === "freePlays" && (m.params as { used: number }).used === used);

describe("guests' free plays", () => {
  it("each song on air counts once per guest, however many tabs; past the limit the room says so", async () => {
    const { room, d, next } = await playingRoom();
    const guest: RoomPerson = await person("guest");
    const tab1 = await connect(room, guest);
    const tab2 = await connect(room, guest);
    // Joining mid-song counts that song, once for both tabs.
    await untilUsed(tab1, 1);
    await untilUsed(tab2, 1);
    expect(lastFreePlays(tab2)).toEqual({ used: 1, limit: GUEST_FREE_PLAYS });
    // A socket's first frame is its full state; the count follows it.
    expect(tab2.messages[0].name).toBe("roomState");
    expect(tab2.messages.filter((m) => m.name === "freePlays")).toHaveLength(1);
    for (let n = 2; n <= GUEST_FREE_PLAYS + 1; n++) {
      await next();
      await untilUsed(tab1, n);
      await untilUsed(tab2, n);
    }
    // The song after the limit: used > limit, which the page reads as "cannot play".
    const over = lastFreePlays(tab1)!;
    expect(over.used).toBeGreaterThan(over.limit);
    await untilD1(guest.uuid, GUEST_FREE_PLAYS + 1);
    // A signed-in listener is never counted.
    const user = await connect(room, await person());
    await next();
    expect(user.messages.some((m) => m.name === "freePlays")).toBe(false);
    for (const c of [tab1, tab2, user, d]) c.close();
  });

  it("the count holds across a reconnect and in another room (D1, read at connect)", async () => {
    const a = await playingRoom();
    const guest = await person("guest");
    const first = await connect(a.room, guest);
    await untilUsed(first, 1);
    await a.next();
    await untilUsed(first, 2);
    await untilD1(guest.uuid, 2);
    first.close();
    // Back in the same room during the same song: still 2, not 3.
    const again = await connect(a.room, guest);
    await untilUsed(again, 2);
    await a.next();
    await untilUsed(again, 3);
    await untilD1(guest.uuid, 3);
    again.close();
    // Another room: its song is a new one, so 4; a fresh guest token there starts at 1.
    const b = await playingRoom();
    const elsewhere = await connect(b.room, guest);
    await untilUsed(elsewhere, 4);
    const stranger = await connect(b.room, await person("guest"));
    await untilUsed(stranger, 1);
    for (const c of [elsewhere, stranger, a.d, b.d]) c.close();
  });

  it("a retried outbox write counts a play once", async () => {
    const uuid = crypto.randomUUID();
    await recordGuestPlays(env, "play-1", [uuid]);
    await recordGuestPlays(env, "play-1", [uuid]);
    expect(await heardInD1(uuid)).toBe(1);
    await recordGuestPlays(env, "play-2", [uuid, crypto.randomUUID()]);
    expect(await heardInD1(uuid)).toBe(2);
  });
});

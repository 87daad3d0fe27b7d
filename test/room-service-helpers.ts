import { call, type CallInit, type TestAccount } from "./helpers";

/**
 * Room-service REST helpers for rooms, room-lists, room-admin and room-favorites tests.
 * (test/room-helpers.ts belongs to the live-room protocol tests.)
 */
export const room = (path: string, init?: CallInit) => call("room-service", path, init);

let n = 0;
/** A unique room name, so slugs made from it never collide across tests of one file. */
export const roomName = (tag = "Room") =>
  `${tag} ${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Creates a room through the real route; answers its RoomDto. */
export async function createRoom(
  owner: Pick<TestAccount, "token">,
  over: Record<string, unknown> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const res = await room("/rooms/infrastructure", {
    token: owner.token,
    body: { name: roomName(), ...over },
  });
  if (res.status !== 201)
    throw new Error(`create room failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

import { env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { relayName } from "../durable/room/relay-link";
import type { StatefulMessage } from "../shared/protocol";
import { ensureRoom, stub, type RoomClient } from "./room-helpers";

/** Makes `room` a stadium room at test scale: relays past `threshold` sockets, `perRelay` each. */
export async function relayRoom(room: string, threshold: number, perRelay: number) {
  await ensureRoom(room);
  await stub(room).relayStats({ threshold, perRelay });
}

export const relayStub = (room: string, index: number) =>
  env.Relay.getByName(relayName(room, index));

/** Sockets relay `index` of `room` holds (its hibernatable sockets, as the runtime counts them). */
export function relaySockets(room: string, index: number): Promise<number> {
  return runInDurableObject(relayStub(room, index), (_o, state) => state.getWebSockets().length);
}

/** Sockets per relay, for relays 0..max-1. */
export async function relayCounts(room: string, max: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < max; i++) out.push(await relaySockets(room, i));
  return out;
}

/**
 * Every client ends with the Room's state at the Room's seq, with no seq gap or failed
 * patch, and every frame past `from` (a seq all of them had reached) is the same frame on
 * every socket, whichever object sent it.
 */
export async function expectSameEverywhere(room: string, clients: RoomClient[], from: number) {
  const state = await stub(room).getState();
  const want = JSON.stringify(state);
  await Promise.all(
    clients.map((c) => c.until((s) => JSON.stringify(s) === want, "the room's state")),
  );
  const seqs = new Set(clients.map((c) => c.seq));
  expect(seqs.size).toBe(1);
  const framesOf = (c: RoomClient) =>
    c
      .frames()
      .filter((f: StatefulMessage) => f.seq > from)
      .map((f) => JSON.stringify(f));
  const first = framesOf(clients[0]);
  for (const c of clients) {
    expect(c.breaches).toEqual([]);
    expect(framesOf(c)).toEqual(first);
  }
}

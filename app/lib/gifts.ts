import type { ChatMessage } from "../../shared/protocol";

/**
 * Which consumable lines play in the room (issue 20; app/components/room/RoomGifts.tsx), kept
 * apart from React so the rule is tested with the room's real frames (test/room-gifts.test.ts).
 *
 * - The chat of the first state is history: nothing in it plays (a page opened after the
 *   confetti does not see it again).
 * - After that, a line not seen before plays once, unless it is older than FRESH_MS by the
 *   room's clock (a reconnect's state brings back lines the page missed: old news).
 * - A `cover` consumable (the shop's Confetti) is confetti over the room; a `small` one is a
 *   sticker.
 */
export const FRESH_MS = 15_000;

export interface GiftShow {
  id: string;
  kind: "confetti" | "sticker";
  name: string;
  item: string;
  imageUrl: string | null;
  /** 0..1: where across the room a sticker rises (stable per line). */
  x: number;
}

/** A small stable number from a message id, so a show looks the same on every render. */
export function seedOf(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The shows the chat `chat` brings, given the ids `seen` so far (null: this is the first
 * state). Answers the ids seen now and the new shows, oldest first.
 */
export function freshGifts(
  seen: ReadonlySet<string> | null,
  chat: readonly ChatMessage[],
  serverNow: number,
  nameOf: (m: ChatMessage) => string,
): { seen: Set<string>; shows: GiftShow[] } {
  if (!seen) return { seen: new Set(chat.map((m) => m.id)), shows: [] };
  // The state holds the last few hundred lines; remembering those is enough.
  const next = new Set(chat.map((m) => m.id));
  const shows: GiftShow[] = [];
  for (const m of chat) {
    const c = m.consumable;
    if (seen.has(m.id) || m.type !== "consumable" || !c) continue;
    if (m.date < serverNow - FRESH_MS) continue;
    shows.push({
      id: m.id,
      kind: c.displayType === "cover" ? "confetti" : "sticker",
      name: nameOf(m),
      item: c.name,
      imageUrl: c.imageUrl,
      x: 0.15 + (seedOf(m.id) % 70) / 100,
    });
  }
  return { seen: next, shows };
}

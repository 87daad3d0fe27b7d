import { describe, expect, it } from "vitest";
import { freshGifts, FRESH_MS } from "../app/lib/gifts";
import type { ChatMessage } from "../shared/protocol";
import { account as roomAccount, connect } from "./room-helpers";
import { buy, buyerInRoom, makeConsumable } from "./token-helpers";

/**
 * Gifts that play in the room (issue 20): a Confetti (a `cover` consumable) bought in a room
 * reaches every listener's socket, and the page rule (app/lib/gifts.ts) plays it there as
 * confetti, once, for the pages that were in the room when it arrived; a sticker (`small`)
 * plays as a sticker. The frames are the room's real ones, through the purchase route.
 */
const nameOf = (m: ChatMessage) => m.userName ?? "someone";

describe("gifts in the room", { timeout: 30_000 }, () => {
  it("confetti and a sticker bought by one listener play once on another listener's page; a page that opens later does not replay them", async () => {
    const b = await buyerInRoom(100);
    const listener = await connect(b.roomUuid, await roomAccount());
    const confetti = await makeConsumable({
      name: "Confetti",
      tokenCost: 20,
      displayType: "cover",
    });
    const sticker = await makeConsumable({
      name: "Fire sticker",
      tokenCost: 5,
      displayType: "small",
    });

    // The listener's page holds its first state: history, nothing plays.
    let page = freshGifts(null, listener.state!.chat, Date.now(), nameOf);
    expect(page.shows).toEqual([]);

    expect((await buy(b, confetti)).status).toBe(201);
    const s1 = await listener.until(
      (s) => s.chat.some((m) => m.consumable?.name === "Confetti"),
      "the confetti line on the listener's socket",
    );
    page = freshGifts(page.seen, s1.chat, Date.now(), nameOf);
    expect(page.shows).toHaveLength(1);
    expect(page.shows[0]).toMatchObject({ kind: "confetti", item: "Confetti" });
    expect(page.shows[0].name).toBeTruthy();
    // The same state again (a re-render, another patch): it does not play twice.
    expect(freshGifts(page.seen, s1.chat, Date.now(), nameOf).shows).toEqual([]);

    expect((await buy(b, sticker)).status).toBe(201);
    const s2 = await listener.until(
      (s) => s.chat.some((m) => m.consumable?.name === "Fire sticker"),
      "the sticker line",
    );
    page = freshGifts(page.seen, s2.chat, Date.now(), nameOf);
    expect(page.shows.map((s) => [s.kind, s.item])).toEqual([["sticker", "Fire sticker"]]);

    // The buyer's own page plays them too (it was in the room).
    const own = freshGifts(new Set(), s2.chat, Date.now(), nameOf);
    expect(own.shows.map((s) => s.kind)).toEqual(["confetti", "sticker"]);

    // A page that opens now gets them as history; a reconnect that finds them long after
    // (older than FRESH_MS by the room's clock) does not play them either.
    const late = await connect(b.roomUuid, await roomAccount());
    expect(freshGifts(null, late.state!.chat, Date.now(), nameOf).shows).toEqual([]);
    expect(freshGifts(new Set(), s2.chat, Date.now() + FRESH_MS + 1000, nameOf).shows).toEqual([]);
    expect(listener.breaches).toEqual([]);
  });
});

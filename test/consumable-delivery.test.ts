import { describe, expect, it } from "vitest";
import type { DeliveryArgs, DeliveryResult } from "../durable/room/consumables";
import { DELIVERY_MSG } from "../durable/room/messages";
import { account, applySettings, connect, newRoom, stub } from "./room-helpers";

/** Room.deliverConsumable, the purchase's delivery step, called as the merch-service does. */
const deliver = (room: string, args: DeliveryArgs) =>
  (
    stub(room) as unknown as { deliverConsumable(a: DeliveryArgs): Promise<DeliveryResult> }
  ).deliverConsumable(args);
const args = (userUuid: string, purchaseId = crypto.randomUUID()): DeliveryArgs => ({
  purchaseId,
  userUuid,
  consumable: {
    consumableId: 7,
    name: "Confetti",
    imageUrl: "/api/merch-service/api/v1/consumables/files/x",
    displayType: "cover",
    tokenCost: 25,
  },
});

describe("Room.deliverConsumable", { timeout: 30_000 }, () => {
  it("posts one consumable line every socket sees, once per purchase id however often it is called", async () => {
    const room = newRoom();
    await applySettings(room);
    const buyer = await account();
    const watcher = await connect(room, await account());
    await connect(room, buyer);
    const a = args(buyer.uuid);
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(room, a)));
    expect(results.filter((r) => r.ok && !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.ok && r.messageId)).size).toBe(1);
    const state = await watcher.until(
      (s) => s.chat.some((m) => m.type === "consumable"),
      "consumable line",
    );
    const lines = state.chat.filter((m) => m.type === "consumable");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      userUuid: buyer.uuid,
      message: "Confetti",
      consumable: { purchaseId: a.purchaseId, displayType: "cover", tokenCost: 25 },
    });
    expect(watcher.breaches).toEqual([]);
  });

  it("remembers a delivery after its chat line has scrolled out of the 300-line history", async () => {
    const room = newRoom();
    await applySettings(room);
    const buyer = await account();
    await connect(room, buyer);
    const first = args(buyer.uuid);
    const r1 = await deliver(room, first);
    for (let i = 0; i < 301; i++) await deliver(room, args(buyer.uuid));
    const again = await deliver(room, first);
    expect(again).toEqual({ ...r1, duplicate: true });
  });

  it("refuses someone not in the room, and a room with chat off, posting nothing", async () => {
    const room = newRoom();
    await applySettings(room);
    const watcher = await connect(room, await account());
    const stranger = await account();
    expect(await deliver(room, args(stranger.uuid))).toEqual({
      ok: false,
      code: "not_in_room",
      message: DELIVERY_MSG.notInRoom,
    });

    const quiet = newRoom();
    await applySettings(quiet, { hasChat: false });
    const buyer = await account();
    await connect(quiet, buyer);
    expect(await deliver(quiet, args(buyer.uuid))).toMatchObject({ ok: false, code: "no_chat" });
    expect((await stub(room).getState()).chat.filter((m) => m.type === "consumable")).toEqual([]);
    expect(watcher.state?.chat.filter((m) => m.type === "consumable")).toEqual([]);
  });
});

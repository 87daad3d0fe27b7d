/**
 * Consumables delivered into the room (the merch-service's purchase: hold, deliver, commit).
 *
 * Invariants:
 * - A purchase is delivered once: `room_consumables` keeps every purchase id it has posted
 *   (not only the last 300 chat lines), so a retried or resumed purchase answers the first
 *   delivery and posts nothing.
 * - Only a user present in the room (a row in room_users, a dropped socket still in its
 *   grace included; guests never buy) receives; otherwise the answer is a refusal and the
 *   merch-service voids the hold. Refusals are returned values, not throws (a rejected RPC
 *   is an exception in every caller).
 * - The message is a chat line of type "consumable", marked like any chat change, so every
 *   socket sees it in the next frame.
 */
import { z } from "zod";
import { chatConsumable, type ChatMessage } from "../../shared/protocol";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { RoomView } from "./view";

export const deliveryArgs = z.object({
  purchaseId: chatConsumable.shape.purchaseId,
  userUuid: z.string().min(1).max(64),
  consumable: chatConsumable.omit({ purchaseId: true }),
});
export type DeliveryArgs = z.input<typeof deliveryArgs>;

export const DELIVERY_MSG = {
  notInRoom: "You need to be in the room to send something there.",
  noChat: "This room has chat turned off, so nothing can be sent there.",
} as const;

export type DeliveryResult =
  | { ok: true; messageId: string; duplicate: boolean; deliveredAt: number }
  | { ok: false; code: "not_in_room" | "no_chat"; message: string };

export class ConsumableDeliveries {
  constructor(
    private readonly sql: SqlStorage,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly now: () => number = Date.now,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_consumables (purchase_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, delivered_at INTEGER NOT NULL)`,
    );
  }

  deliver(input: DeliveryArgs): DeliveryResult {
    const args = deliveryArgs.parse(input);
    const prior = this.sql
      .exec<{ message_id: string; delivered_at: number }>(
        `SELECT message_id, delivered_at FROM room_consumables WHERE purchase_id = ?`,
        args.purchaseId,
      )
      .toArray()[0];
    if (prior)
      return {
        ok: true,
        messageId: prior.message_id,
        duplicate: true,
        deliveredAt: prior.delivered_at,
      };
    const present = this.storage.user(args.userUuid);
    if (!present || present.guest)
      return { ok: false, code: "not_in_room", message: DELIVERY_MSG.notInRoom };
    const now = this.now();
    if (!new RoomView(this.storage, now).settings.hasChat)
      return { ok: false, code: "no_chat", message: DELIVERY_MSG.noChat };
    const profile = this.storage.profile(args.userUuid);
    const id = crypto.randomUUID();
    const message: ChatMessage = {
      id,
      uuid: id,
      type: "consumable",
      message: args.consumable.name,
      userUuid: args.userUuid,
      userName: profile?.nickname ?? null,
      avatarId: profile?.avatarId ?? null,
      color: profile?.color ?? null,
      badges: profile ? [...profile.badges] : [],
      date: now,
      replyTo: null,
      reactions: {},
      imageUrls: [],
      media: null,
      songs: [],
      clientId: null,
      edited: false,
      consumable: { purchaseId: args.purchaseId, ...args.consumable },
    };
    // Both writes run inside this synchronous call, so they land together (one implicit
    // transaction of the object's storage) and no other call sees one without the other.
    this.sql.exec(
      `INSERT INTO room_consumables (purchase_id, message_id, delivered_at) VALUES (?, ?, ?)`,
      args.purchaseId,
      id,
      now,
    );
    this.storage.chat.add(message);
    this.publisher.mark(["chat"], "updatedChat");
    return { ok: true, messageId: id, duplicate: false, deliveredAt: now };
  }
}

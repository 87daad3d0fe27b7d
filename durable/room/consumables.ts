/**
 * Consumables delivered into the room (the merch-service's purchase: hold, deliver, commit).
 *
 * Invariants:
 * - A purchase is delivered once: RoomStorage keeps every purchase id it has posted
 *   (consumable-storage.ts), so a retried or resumed purchase answers the first delivery
 *   and posts nothing.
 * - Only a user present in the room (a row in room_users, a dropped socket still in its
 *   grace included; guests never buy) receives; otherwise the answer is a refusal and the
 *   merch-service voids the hold. Refusals are returned values, not throws (a rejected RPC
 *   is an exception in every caller).
 * - The message is a chat line of type "consumable", marked like any chat change, so every
 *   socket sees it in the next frame.
 */
import { z } from "zod";
import { chatConsumable } from "../../shared/protocol";
import { chatLine } from "./chat";
import { DELIVERY_MSG } from "./messages";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { RoomView } from "./view";

export const deliveryArgs = z.object({
  purchaseId: chatConsumable.shape.purchaseId,
  userUuid: z.string().min(1).max(64),
  consumable: chatConsumable.omit({ purchaseId: true }),
});
export type DeliveryArgs = z.input<typeof deliveryArgs>;

export type DeliveryResult =
  | { ok: true; messageId: string; duplicate: boolean; deliveredAt: number }
  | { ok: false; code: "not_in_room" | "no_chat" | "closed"; message: string };

export class ConsumableDeliveries {
  constructor(
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly now: () => number = Date.now,
  ) {}

  deliver(input: DeliveryArgs): DeliveryResult {
    const args = deliveryArgs.parse(input);
    const prior = this.storage.consumables.delivered(args.purchaseId);
    if (prior)
      return {
        ok: true,
        messageId: prior.messageId,
        duplicate: true,
        deliveredAt: prior.deliveredAt,
      };
    if (this.storage.consumables.closed(args.purchaseId))
      return { ok: false, code: "closed", message: DELIVERY_MSG.closed };
    const present = this.storage.user(args.userUuid);
    if (!present || present.guest)
      return { ok: false, code: "not_in_room", message: DELIVERY_MSG.notInRoom };
    const now = this.now();
    if (!new RoomView(this.storage, now).settings.hasChat)
      return { ok: false, code: "no_chat", message: DELIVERY_MSG.noChat };
    const profile = this.storage.profile(args.userUuid);
    const message = chatLine("consumable", now, {
      message: args.consumable.name,
      userUuid: args.userUuid,
      userName: profile?.nickname ?? null,
      avatarId: profile?.avatarId ?? null,
      color: profile?.color ?? null,
      badges: profile ? [...profile.badges] : [],
      consumable: { purchaseId: args.purchaseId, ...args.consumable },
    });
    // Both writes run inside this synchronous call, so they land together (one implicit
    // transaction of the object's storage) and no other call sees one without the other.
    this.storage.consumables.record(args.purchaseId, message.id, now);
    this.storage.chat.add(message);
    this.publisher.mark(["chat"], "updatedChat");
    return { ok: true, messageId: message.id, duplicate: false, deliveredAt: now };
  }

  /**
   * Ends a purchase's chance of delivery: answers whether it was delivered (then it must be
   * charged); if it was not, it never will be (then its hold is voided). One answer per
   * purchase, whoever asks and however often (the request, its retry, the account's alarm).
   */
  close(purchaseId: string): { delivered: boolean } {
    const id = chatConsumable.shape.purchaseId.parse(purchaseId);
    if (this.storage.consumables.delivered(id)) return { delivered: true };
    this.storage.consumables.close(id, this.now());
    return { delivered: false };
  }
}

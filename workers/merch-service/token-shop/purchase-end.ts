import { and, eq } from "drizzle-orm";
import { getServerByName } from "partyserver";
import { db } from "../../db/client";
import {
  consumablePurchases,
  type ConsumablePurchaseRow,
  type PurchaseStatus,
} from "../../db/schema";
import type { Env } from "../../env";
import { audit } from "../../queues/audit";

/**
 * How a consumable purchase ends, exactly once, whoever finishes it (issue 12): the request,
 * its retry, or the buyer's TokenAccount when the hold's time is up.
 *
 * - The room decides: `closeConsumable` answers whether the purchase was delivered there,
 *   and if it was not, makes sure it never will be. Delivered means charged, undelivered
 *   means voided; the account then ends its hold by that answer (`endPurchase`), which
 *   nobody else may do (an owner's or a service's void of a purchase hold is refused), and
 *   which works on a disabled account too (the tokens were held while it was active).
 * - The D1 row follows (`settlePurchase`): moved out of `held` once, the first writer wins,
 *   with its audit event keyed by the outcome.
 */

export type PurchaseOutcome = "committed" | "voided";

/** The room's one answer for this purchase (throws if the room cannot be reached). */
export async function closeInRoom(env: Env, roomUuid: string, purchaseId: string) {
  const room = await getServerByName(env.Room, roomUuid);
  const { delivered } = await room.closeConsumable(purchaseId);
  return delivered ? ("committed" as const) : ("voided" as const);
}

/** Moves the row out of "held" (once: the first writer wins) and records the audit event. */
export async function settlePurchase(
  env: Env,
  purchaseId: string,
  status: Exclude<PurchaseStatus, "held">,
): Promise<ConsumablePurchaseRow | undefined> {
  const d = db(env);
  const moved = await d
    .update(consumablePurchases)
    .set({ status, updatedAt: Date.now() })
    .where(and(eq(consumablePurchases.id, purchaseId), eq(consumablePurchases.status, "held")))
    .returning()
    .get();
  if (moved) {
    // The event id is the purchase and its outcome, so a resumed purchase records it once.
    const data = {
      purchaseId,
      accountId: moved.accountId,
      roomUuid: moved.roomUuid,
      consumableId: moved.consumableId,
      tokenCost: moved.tokenCost,
      status,
    };
    await audit(env, "purchase", moved.userUuid, data, `purchase:${purchaseId}:${status}`).catch(
      (e) => console.error("audit failed", e),
    );
    return moved;
  }
  return d.select().from(consumablePurchases).where(eq(consumablePurchases.id, purchaseId)).get();
}

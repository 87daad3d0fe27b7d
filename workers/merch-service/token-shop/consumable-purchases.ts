import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { getServerByName } from "partyserver";
import { z } from "zod";
import type { TransactionOk } from "../../../durable/token-account";
import { db } from "../../db/client";
import {
  consumablePurchases,
  rooms,
  type ConsumablePurchaseRow,
  type ConsumableRow,
  type TokenAccountRow,
} from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { caller, requireUser } from "../../lib/auth";
import { ApiError, conflict, notFound } from "../../lib/errors";
import { cleanText, parseOr400, valid } from "../../lib/validate";
import { accountFor, accountObject } from "./account-repo";
import { consumableOr404 } from "./consumables";
import { toAccountDto, toConsumableDto, toPurchaseDto } from "./shop-dto";
import { MSG } from "../messages";
import { closeInRoom, settlePurchase, type PurchaseOutcome } from "./purchase-end";
import { refusalError } from "./token-transactions";

/**
 * POST /api/v1/consumable-purchases: buy a consumable and send it into a room.
 *
 * The saga, each step keyed by the purchase id so any retry can run it again safely:
 * 1. hold `tokenCost` on the buyer's TokenAccount (key `purchase:<id>`), with the client's
 *    `balanceUnmodifiedSince` / `lastTokenBalance` as the hold's expectations (stale: 409);
 * 2. record the purchase row (unique idempotency key; status held);
 * 3. deliver to the Room (`deliverConsumable`, idempotent by purchase id): a chat line of
 *    type "consumable" every socket sees; refused if the buyer is not in the room, and
 *    never after the room closed the purchase undelivered;
 * 4. end the hold by the room's answer (purchase-end.ts): delivered, commit (`commit:<id>`);
 *    not delivered (refused, or a lost answer the room says was not shown), close it in the
 *    room for good and void (`void:<id>`). Nobody else ends a purchase's hold.
 *
 * Idempotency: the `Idempotency-Key` header, else (when `balanceUnmodifiedSince` is sent) a
 * key derived from caller, account, room, consumable and that time; without either, every
 * request is a new purchase. The purchase id is derived from the key, so a retry, even one
 * racing the first request, reaches the same hold, the same delivery and the same commit:
 * nothing is charged twice. A retry of a finished purchase answers as the first did, with
 * `Idempotent-Replayed: true`. A request that died mid-way is resumed by its retry; with no
 * retry, the account's alarm finishes it when the hold's time is up (HOLD_TTL_MS): charged
 * if the room shows it was delivered, released if not.
 *
 * Statuses: 201 bought; 400 bad input; 403 not the caller's account, or disabled; 404 no such
 * account, consumable or room; 409 cost changed, balance stale, buyer not in the room, key
 * reused for another purchase, or the purchase was cancelled; 422 too few tokens; 503 the
 * room could not be reached (voided, nothing charged), or could not even answer whether it
 * showed the purchase (the alarm finishes it).
 */
export const consumablePurchaseRoutes = new Hono<AppEnv>();

const purchaseBody = z.object({
  roomUuid: z.uuid({ error: "roomUuid must be a UUID" }),
  consumableId: z
    .number({ error: "consumableId must be a number" })
    .int("consumableId must be an integer")
    .min(1, "consumableId must be positive")
    .max(Number.MAX_SAFE_INTEGER, "consumableId is too large"),
  accountId: z.uuid({ error: "accountId must be a UUID" }),
  balanceUnmodifiedSince: z.iso
    .datetime({ offset: true, error: "balanceUnmodifiedSince must be an ISO 8601 date-time" })
    .optional(),
  lastTokenBalance: z
    .number({ error: "lastTokenBalance must be a number" })
    .int("lastTokenBalance must be an integer")
    .min(0, "lastTokenBalance must not be negative")
    .optional(),
  tokenCost: z
    .number({ error: "tokenCost must be a number" })
    .int("tokenCost must be an integer")
    .min(1, "tokenCost must be a positive integer")
    .max(1_000_000, "tokenCost must be at most 1000000"),
});
type PurchaseBody = z.output<typeof purchaseBody>;
const idempotencyHeader = z
  .string()
  .min(1, "Idempotency-Key must not be empty")
  .max(200, "Idempotency-Key must be at most 200 characters")
  .refine((s) => cleanText(s), "Idempotency-Key must not contain control characters")
  .optional();

const holdKey = (id: string) => `purchase:${id}`;

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** The purchase's idempotency key and the id derived from it (a UUID-shaped digest). */
export async function purchaseIdentity(
  who: string,
  body: PurchaseBody,
  header: string | undefined,
) {
  const fresh = header === undefined && body.balanceUnmodifiedSince === undefined;
  const source =
    header !== undefined
      ? `header\n${who}\n${header}`
      : !fresh
        ? `derived\n${who}\n${body.accountId}\n${body.roomUuid}\n${body.consumableId}\n${Date.parse(body.balanceUnmodifiedSince!)}`
        : `fresh\n${crypto.randomUUID()}`;
  const hex = [...(await sha256(source))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  return { key: hex, id, fresh };
}

consumablePurchaseRoutes.post(
  "/api/v1/consumable-purchases",
  requireUser,
  valid("json", purchaseBody),
  async (c) => {
    const who = caller(c);
    const body = c.req.valid("json");
    const header = parseOr400(idempotencyHeader, c.req.header("Idempotency-Key"));
    // Only the owner spends an account's tokens (an admin neither: nobody buys for someone else).
    const account = await accountFor(c.env, who, body.accountId, false);
    const { key, id, fresh } = await purchaseIdentity(who.uuid, body, header);
    const d = db(c.env);

    // A fresh key (no header, no balanceUnmodifiedSince) cannot have a row yet.
    const existing = fresh
      ? undefined
      : await d
          .select()
          .from(consumablePurchases)
          .where(eq(consumablePurchases.idempotencyKey, key))
          .get();
    if (existing) {
      sameRequest(existing, body);
      return answer(c.env, account, await resume(c.env, existing), true);
    }

    const [consumable, room] = await Promise.all([
      consumableOr404(c.env, body.consumableId),
      d.select({ uuid: rooms.uuid }).from(rooms).where(eq(rooms.uuid, body.roomUuid)).get(),
    ]);
    if (!room) throw notFound(MSG.roomNotFound);
    if (body.tokenCost !== consumable.tokenCost)
      throw conflict(MSG.costChanged(consumable.tokenCost));

    const hold = await accountObject(c.env, account.id).hold(
      consumable.tokenCost,
      holdKey(id),
      { unmodifiedSince: body.balanceUnmodifiedSince, balance: body.lastTokenBalance },
      `consumable ${consumable.id} in room ${body.roomUuid}`,
      { purchaseId: id, roomUuid: body.roomUuid },
    );
    if (!hold.ok) throw refusalError(hold);

    // A racing retry may have inserted first: the unique key keeps one row, and both go on
    // with it (every later step is idempotent by the purchase id).
    const row =
      (await d
        .insert(consumablePurchases)
        .values({
          id,
          idempotencyKey: key,
          accountId: account.id,
          userUuid: who.uuid,
          roomUuid: body.roomUuid,
          consumableId: consumable.id,
          tokenCost: consumable.tokenCost,
          holdId: hold.holdId,
        })
        .onConflictDoNothing({ target: consumablePurchases.idempotencyKey })
        .returning()
        .get()) ??
      (await d
        .select()
        .from(consumablePurchases)
        .where(eq(consumablePurchases.idempotencyKey, key))
        .get());
    if (!row) throw new Error(`purchase ${id} vanished after insert`);
    sameRequest(row, body);
    return answer(c.env, account, await resume(c.env, row, consumable, hold), hold.duplicate);
  },
);

/** A key names one purchase: the same key for another room, item or account is refused. */
function sameRequest(row: ConsumablePurchaseRow, body: PurchaseBody) {
  if (
    row.accountId !== body.accountId ||
    row.roomUuid !== body.roomUuid ||
    row.consumableId !== body.consumableId ||
    row.tokenCost !== body.tokenCost
  ) {
    throw conflict(MSG.keyReused);
  }
}

/**
 * Runs the purchase from wherever it stands to its end: committed (answered) or voided
 * (thrown as the reason). Safe to run any number of times, concurrently too, and alongside
 * the account's alarm: every path ends the hold by the room's one answer (purchase-end.ts).
 */
async function resume(
  env: Env,
  row: ConsumablePurchaseRow,
  known?: ConsumableRow,
  knownHold?: TransactionOk,
): Promise<ConsumablePurchaseRow> {
  if (row.status === "committed") return row;
  if (row.status === "voided") throw conflict(MSG.cancelled);
  const stub = accountObject(env, row.accountId);
  // Where the hold stands now: a retry must not deliver what expired or was already charged.
  const hold = knownHold ?? (await stub.hold(row.tokenCost, holdKey(row.id)));
  if (!hold.ok) throw refusalError(hold);
  if (hold.holdStatus !== "open") {
    const ended = await settlePurchase(env, row.id, hold.holdStatus ?? "voided");
    if (ended?.status === "committed") return ended;
    throw conflict(MSG.cancelled);
  }

  // Why an undelivered purchase was not delivered, as the client will hear it.
  let refusal: ApiError = conflict(MSG.cancelled);
  let outcome: PurchaseOutcome;
  try {
    const consumable = known ?? (await consumableOr404(env, row.consumableId));
    const dto = toConsumableDto(consumable);
    const room = await getServerByName(env.Room, row.roomUuid);
    const delivered = await room.deliverConsumable({
      purchaseId: row.id,
      userUuid: row.userUuid,
      consumable: {
        consumableId: dto.id,
        name: dto.name,
        imageUrl: dto.imageUrl,
        displayType: dto.displayType,
        tokenCost: row.tokenCost,
      },
    });
    if (delivered.ok) outcome = "committed";
    else {
      refusal = conflict(delivered.message);
      outcome = await closeInRoom(env, row.roomUuid, row.id);
    }
  } catch (err) {
    // The delivery's answer was lost (it may have been shown) or it never ran: the room's
    // answer decides. A room that cannot answer at all leaves the hold open for the
    // account's alarm to finish (charged if it was shown, released if not).
    console.error(`delivery of purchase ${row.id} failed`, err);
    try {
      outcome = await closeInRoom(env, row.roomUuid, row.id);
    } catch {
      throw new ApiError(503, MSG.deliveryPending);
    }
    refusal = err instanceof ApiError ? err : new ApiError(503, MSG.deliveryFailed);
  }

  const ended = await stub.endPurchase(row.holdId!, row.id, outcome);
  if (!ended.ok) throw refusalError(ended);
  const settled = await settlePurchase(env, row.id, outcome);
  if (outcome === "voided") throw refusal;
  return settled ?? { ...row, status: "committed" };
}

async function answer(
  env: Env,
  account: TokenAccountRow,
  row: ConsumablePurchaseRow,
  replayed: boolean,
) {
  if (row.status === "voided") throw conflict(MSG.cancelled);
  const view = await accountObject(env, account.id).getAccount();
  return Response.json(
    { purchase: toPurchaseDto(row), account: toAccountDto(account, view) },
    { status: 201, headers: replayed ? { "Idempotent-Replayed": "true" } : {} },
  );
}

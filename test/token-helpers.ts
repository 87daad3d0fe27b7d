import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { ConsumableDto } from "../workers/merch-service/token-shop/shop-dto";
import { admin, call, type CallInit, type TestAccount } from "./helpers";
import { account as roomAccount, connect, type RoomClient, type RoomPerson } from "./room-helpers";
import { createRoom } from "./room-service-helpers";

/** Token shop helpers for token-*.test.ts and consumable*.test.ts. */

export const merch = (path: string, init?: CallInit) =>
  call("merch-service", `/api/v1${path}`, init);

/** A real 1x1 GIF (the smallest image the upload rules accept by its bytes). */
export const tinyGif = () =>
  Uint8Array.from(atob("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), (ch) =>
    ch.charCodeAt(0),
  );
export const fileForm = (
  bytes: Uint8Array<ArrayBuffer> | string,
  type = "image/gif",
  name = "pic.gif",
) => {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
};

let adminAccount: Promise<TestAccount> | undefined;
/** One admin per test file (storage is per file). */
export const storeAdmin = () => (adminAccount ??= admin());

/** The caller's token account (POST token-accounts). */
export async function tokenAccount(who: {
  token: string;
}): Promise<{ id: string; balance: number; updatedAt: string }> {
  const res = await merch("/token-accounts", { token: who.token, method: "POST" });
  expect([200, 201]).toContain(res.status);
  return res.body;
}

/** Credits through the dev/test grant route, as the browser tests do. */
export async function grant(accountId: string, amount: number) {
  const res = await merch(`/token-accounts/${accountId}/grant`, {
    token: (await storeAdmin()).token,
    body: { amount },
  });
  expect(res.status).toBe(201);
  return res.body;
}

export async function makeConsumable(over: Record<string, unknown> = {}) {
  const res = await merch("/consumables", {
    token: (await storeAdmin()).token,
    body: {
      name: `Confetti ${crypto.randomUUID().slice(0, 6)}`,
      tokenCost: 10,
      displayType: "cover",
      ...over,
    },
  });
  expect(res.status).toBe(201);
  return res.body as ConsumableDto;
}

export interface Buyer extends RoomPerson {
  accountId: string;
  roomUuid: string;
  socket: RoomClient;
}

/** A signed-up user with `tokens`, in a fresh room (socket open), ready to buy. */
export async function buyerInRoom(tokens: number): Promise<Buyer> {
  const who = await roomAccount();
  const room = await createRoom(who);
  const socket = await connect(room.uuid, who);
  const acc = await tokenAccount(who);
  if (tokens > 0) await grant(acc.id, tokens);
  return { ...who, accountId: acc.id, roomUuid: room.uuid, socket };
}

export const balanceOf = async (accountId: string) =>
  env.TokenAccount.getByName(accountId).getAccount();

/** POST /consumable-purchases for `b` with `over` merged into the body. */
export const buy = (
  b: Buyer,
  consumable: { id: number; tokenCost: number },
  over: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  merch("/consumable-purchases", {
    token: b.token,
    headers,
    body: {
      roomUuid: b.roomUuid,
      consumableId: consumable.id,
      accountId: b.accountId,
      tokenCost: consumable.tokenCost,
      ...over,
    },
  });

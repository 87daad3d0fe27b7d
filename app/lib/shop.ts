import type {
  AccountDto,
  BundleDto,
  ConsumableDto,
  PurchaseDto,
} from "../../workers/merch-service/token-shop/shop-dto";
import { apiRequest } from "./api.client";
import { ApiError, displayError } from "./errors";

/**
 * The token shop as the web app sees it. Shapes are the merch-service's own DTO types
 * (type-only imports: no server code reaches the browser bundle).
 */
export const MERCH = "/api/merch-service/api/v1";
/** Seed 000, section 9: consumables and token bundles are listed 32 a page. */
export const SHOP_PAGE = 32;

export type TokenAccount = AccountDto;
export type Consumable = ConsumableDto;
export type TokenBundle = BundleDto;
export type Purchase = PurchaseDto;
export interface ShopPage<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

/** The caller's account from the browser: GET self, made on first view (POST) when missing. */
export async function fetchOwnAccount(): Promise<TokenAccount> {
  try {
    return await apiRequest<TokenAccount>(`${MERCH}/token-accounts/self`);
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
    return apiRequest<TokenAccount>(`${MERCH}/token-accounts`, { method: "POST" });
  }
}

export const fetchConsumables = (offset: number, signal?: AbortSignal) =>
  apiRequest<ShopPage<Consumable>>(`${MERCH}/consumables?limit=${SHOP_PAGE}&offset=${offset}`, {
    signal,
  });

/**
 * Buys `consumable` for the room. The account's version and balance go along, so a stale
 * screen gets 409 instead of a surprise; `idempotencyKey` is made once per confirmation,
 * so a retried click never buys twice.
 */
export async function buyConsumable(
  account: TokenAccount,
  consumable: Consumable,
  roomUuid: string,
  idempotencyKey: string,
) {
  const body = {
    roomUuid,
    consumableId: consumable.id,
    accountId: account.id,
    tokenCost: consumable.tokenCost,
    balanceUnmodifiedSince: account.updatedAt,
    lastTokenBalance: account.balance,
  };
  let res: Response;
  try {
    res = await fetch(`${MERCH}/consumable-purchases`, {
      method: "POST",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "Idempotency-Key": idempotencyKey,
      },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError({ status: 0, message: "", generic: true });
  }
  const parsed: unknown = await res.json().catch(() => null);
  if (!res.ok || !parsed) throw new ApiError(displayError(res.ok ? 502 : res.status, parsed));
  return parsed as { purchase: Purchase; account: TokenAccount };
}

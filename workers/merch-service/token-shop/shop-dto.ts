import type { TokenAccountView } from "../../../durable/token-account";
import type {
  ConsumablePurchaseRow,
  ConsumableRow,
  ProductRow,
  TokenAccountRow,
  TokenBundleRow,
} from "../../db/schema";

/**
 * What the token shop answers: D1 rows (epoch ms) as JSON with ISO times, and file keys
 * as the URLs that serve them. Shapes derive from the drizzle rows and the object's view.
 */

const iso = (ms: number) => new Date(ms).toISOString();
const BASE = "/api/merch-service/api/v1";

export const consumableFileUrl = (fileId: string) => `${BASE}/consumables/files/${fileId}`;
export const bundleThumbnailUrl = (bundle: Pick<TokenBundleRow, "id" | "thumbnailKey">) =>
  // The key's last segment is a fresh uuid per upload, so the URL changes with the picture
  // and the thumbnail can be cached for good.
  bundle.thumbnailKey
    ? `${BASE}/token-bundles/${bundle.id}/thumbnail?v=${bundle.thumbnailKey.split("/").pop()}`
    : null;

/** A token account: the D1 row (who owns it) with the object's live balance. */
export const toAccountDto = (row: TokenAccountRow, view: TokenAccountView) => ({
  id: row.id,
  userUuid: row.userUuid,
  balance: view.balance,
  heldBalance: view.heldBalance,
  /** Tokens owed after a refund took back spent ones; while > 0 nothing can be bought. */
  debt: view.debt,
  updatedAt: view.updatedAt,
  status: view.status,
  createdAt: iso(row.createdAt),
});
export type AccountDto = ReturnType<typeof toAccountDto>;

export const toBundleDto = (
  row: TokenBundleRow,
  product?: Pick<ProductRow, "price" | "currency" | "name"> | null,
) => ({
  id: row.id,
  productId: row.productId,
  name: row.name,
  description: row.description,
  tokenAmount: row.tokenAmount,
  thumbnailUrl: bundleThumbnailUrl(row),
  /** From the payment-service's product, when it exists: smallest currency unit (cents). */
  price: product?.price ?? null,
  currency: product?.currency ?? null,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});
export type BundleDto = ReturnType<typeof toBundleDto>;

export const toConsumableDto = (row: ConsumableRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  tokenCost: row.tokenCost,
  displayType: row.displayType,
  fileId: row.fileId,
  imageUrl: row.fileId ? consumableFileUrl(row.fileId) : null,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});
export type ConsumableDto = ReturnType<typeof toConsumableDto>;

export const toPurchaseDto = (row: ConsumablePurchaseRow) => ({
  id: row.id,
  accountId: row.accountId,
  userUuid: row.userUuid,
  roomUuid: row.roomUuid,
  consumableId: row.consumableId,
  tokenCost: row.tokenCost,
  status: row.status,
  holdId: row.holdId,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});
export type PurchaseDto = ReturnType<typeof toPurchaseDto>;

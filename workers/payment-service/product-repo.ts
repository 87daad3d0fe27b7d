import { eq, inArray } from "drizzle-orm";
import { db } from "../db/client";
import { products, tokenBundles, type ProductRow, type TokenBundleRow } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../lib/errors";
import { MSG } from "./messages";

/** Products in D1 and the token bundle (merch-service's row, read only here) each one sells. */

export type BundleSummary = Pick<TokenBundleRow, "id" | "name" | "tokenAmount">;

/** A product as the API shows it: times as ISO strings, with the bundle it sells if any. */
export function productDto(p: ProductRow, bundle: BundleSummary | null = null) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    paymentType: p.paymentType,
    price: p.price,
    currency: p.currency,
    subscriptionLevel: p.subscriptionLevel,
    stripePriceId: p.stripePriceId,
    active: p.active,
    tokenBundle: bundle,
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}
export type ProductDto = ReturnType<typeof productDto>;

export const findProduct = (env: Env, id: string) =>
  db(env).select().from(products).where(eq(products.id, id)).get();

export async function productOr404(env: Env, id: string): Promise<ProductRow> {
  const p = await findProduct(env, id);
  if (!p) throw notFound(MSG.productNotFound);
  return p;
}

/** The bundle a product sells (at most one: `token_bundles.product_id` is unique). */
export async function bundleFor(env: Env, productId: string): Promise<TokenBundleRow | undefined> {
  return db(env).select().from(tokenBundles).where(eq(tokenBundles.productId, productId)).get();
}

/** The bundle of each product in `ids`, for list answers. */
export async function bundlesFor(env: Env, ids: string[]): Promise<Map<string, BundleSummary>> {
  const out = new Map<string, BundleSummary>();
  if (!ids.length) return out;
  const rows = await db(env)
    .select({
      id: tokenBundles.id,
      name: tokenBundles.name,
      tokenAmount: tokenBundles.tokenAmount,
      productId: tokenBundles.productId,
    })
    .from(tokenBundles)
    .where(inArray(tokenBundles.productId, ids))
    .all();
  for (const r of rows)
    out.set(r.productId, { id: r.id, name: r.name, tokenAmount: r.tokenAmount });
  return out;
}

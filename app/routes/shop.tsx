import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { MERCH, SHOP_PAGE, type Consumable, type ShopPage } from "~/lib/shop";
import { ShopScreen } from "~/components/shop/ShopScreen";

export const meta = pageMeta("shop.title");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The shop: every consumable, 32 a page (`?page=`). A consumable is sent into a room, so
 * buying happens there (the gift button beside the chat box opens this shop as a drawer);
 * `?room=<uuid>` makes this page send to that room too.
 */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const room = url.searchParams.get("room");
  const res = await callApi<ShopPage<Consumable>>(
    args,
    `${MERCH}/consumables?limit=${SHOP_PAGE}&offset=${(page - 1) * SHOP_PAGE}`,
  );
  return {
    page,
    roomUuid: room && UUID.test(room) ? room : null,
    list: res.ok ? res.data : null,
    error: res.ok ? null : res,
  };
}

export default function Shop() {
  return <ShopScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

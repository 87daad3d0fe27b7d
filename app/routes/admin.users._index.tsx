import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { USER_ROLES } from "../../shared/roles";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi, userApi } from "~/lib/api.server";
import { MERCH_SERVICE } from "~/lib/payments";
import type { Paged, User } from "~/lib/types";
import type { AdminDebtRow } from "../../workers/merch-service/token-shop/admin-token-accounts";
import { AdminUsersScreen } from "~/components/admin/AdminUsersScreen";

export const meta = pageMeta("admin.title");

const PAGE_SIZE = 20;
const DEBTS_SHOWN = 10;

/**
 * GET /admin/users with the crud query language: `s` searches e-mail and nickname
 * (case-insensitive contains), `filter=roles||$contL||<role>` narrows by role. Above the
 * list, the accounts that owe tokens after a refund (the largest DEBTS_SHOWN debts).
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const q = (url.searchParams.get("q") ?? "").trim();
  const role = url.searchParams.get("role") ?? "";
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);

  const query = new URLSearchParams({
    limit: String(PAGE_SIZE),
    page: String(page),
    sort: "createdAt,DESC",
  });
  if (q)
    query.set(
      "s",
      JSON.stringify({ $or: [{ email: { $contL: q } }, { nickname: { $contL: q } }] }),
    );
  if ((USER_ROLES as readonly string[]).includes(role))
    query.set("filter", `roles||$contL||${role}`);

  const [res, debts] = await Promise.all([
    userApi<Paged<User>>(args, `/admin/users?${query}`, { token }),
    callApi<Paged<AdminDebtRow>>(args, `${MERCH_SERVICE}/admin/token-debts?limit=${DEBTS_SHOWN}`, {
      token,
    }),
  ]);
  if (!res.ok) adminFailure(args.request, res);
  return {
    // The users list still shows if this fails.
    debts: debts.ok ? debts.data.data : [],
    debtsTotal: debts.ok ? debts.data.total : 0,
    q,
    role,
    ...res.data,
    page: res.data.page || page,
    pageCount: Math.max(1, res.data.pageCount || 1),
  };
}

export default function AdminUsers() {
  return <AdminUsersScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

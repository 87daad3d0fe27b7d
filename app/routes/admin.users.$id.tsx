import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi, userApi } from "~/lib/api.server";
import { MERCH_SERVICE } from "~/lib/payments";
import type { User } from "~/lib/types";
import type { AdminUserTokens } from "../../workers/merch-service/token-shop/admin-token-accounts";
import { AdminUserScreen } from "~/components/admin/AdminUserScreen";

export const meta = pageMeta("admin.title");

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const res = await userApi<User>(
    args,
    `/admin/users/${encodeURIComponent(args.params.id ?? "")}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  // The user's tokens (balance, debt, refund entries); the record still shows if this fails.
  const tokens = await callApi<AdminUserTokens>(
    args,
    `${MERCH_SERVICE}/admin/token-accounts/user/${encodeURIComponent(res.data.uuid)}`,
    { token },
  );
  return { user: res.data, tokens: tokens.ok ? tokens.data : null };
}

export default function AdminUser() {
  return <AdminUserScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { userApi } from "~/lib/api.server";
import type { User } from "~/lib/types";
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
  return { user: res.data };
}

export default function AdminUser() {
  return <AdminUserScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

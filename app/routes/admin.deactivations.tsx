import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { DeactivationsScreen } from "~/components/admin/DeactivationsScreen";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { userApi } from "~/lib/api.server";
import type { User } from "~/lib/types";

export const meta = pageMeta("deact.title");

const PAGE_SIZE = 20;

/**
 * Deactivation requests for admins (issue 15; GET /users/list-deactivate): pending requests
 * oldest first, or `?state=deactivated` for the deactivated accounts.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const state = url.searchParams.get("state") === "deactivated" ? "deactivated" : "requested";
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const q = new URLSearchParams({
    state,
    take: String(PAGE_SIZE),
    skip: String((page - 1) * PAGE_SIZE),
  });
  const res = await userApi<{ data: User[]; total: number }>(args, `/users/list-deactivate?${q}`, {
    token,
  });
  if (!res.ok) adminFailure(args.request, res);
  return {
    state,
    page,
    pageCount: Math.max(1, Math.ceil(res.data.total / PAGE_SIZE)),
    total: res.data.total,
    users: res.data.data,
  };
}

export default function AdminDeactivations() {
  return <DeactivationsScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

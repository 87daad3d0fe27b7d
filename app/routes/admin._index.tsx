import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { requireAdmin } from "~/lib/admin.server";
import { AdminHomeScreen } from "~/components/admin/AdminHomeScreen";

export const meta = pageMeta("adminHome.title");

/**
 * The admin home (issue 20: `/admin` was a 404 even for an admin): a card for every admin
 * page. Like every admin page, a visitor goes to log in and a plain user gets a 403.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAdmin(args);
  return null;
}

export default function AdminHome() {
  return <AdminHomeScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { PhoneWhitelistScreen } from "~/components/admin/PhoneWhitelistScreen";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { userApi } from "~/lib/api.server";

export const meta = pageMeta("phones.title");

const PAGE_SIZE = 20;

export interface WhitelistEntry {
  id: number;
  phoneNumber: string;
  code: string;
  note: string | null;
  createdAt: string;
}

/** The phone whitelist for admins (issue 15; GET /admin/phoneNumbers), newest first. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const q = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page), sort: "id,DESC" });
  const res = await userApi<{ data: WhitelistEntry[]; total: number; pageCount: number }>(
    args,
    `/admin/phoneNumbers?${q}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { page, pageCount: res.data.pageCount, total: res.data.total, entries: res.data.data };
}

export default function AdminPhones() {
  return <PhoneWhitelistScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { AVATAR_STATUSES } from "../../workers/db/points-schema";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH_SERVICE, type AvatarDto } from "~/lib/avatars";
import type { Paged } from "~/lib/types";
import { AdminAvatarsScreen } from "~/components/admin/AdminAvatarsScreen";

export const meta = pageMeta("adminAvatars.title");

const PAGE_SIZE = 24;

/** GET /admin/avatars (crud query): newest first, `filter=status||$eq||<status>`. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const status = url.searchParams.get("status") ?? "";
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const query = new URLSearchParams({
    limit: String(PAGE_SIZE),
    page: String(page),
    sort: "createdAt,DESC",
  });
  if ((AVATAR_STATUSES as readonly string[]).includes(status))
    query.set("filter", `status||$eq||${status}`);
  const res = await callApi<Paged<AvatarDto>>(args, `${MERCH_SERVICE}/admin/avatars?${query}`, {
    token,
  });
  if (!res.ok) adminFailure(args.request, res);
  return {
    statuses: AVATAR_STATUSES,
    status,
    ...res.data,
    page: res.data.page || page,
    pageCount: Math.max(1, res.data.pageCount || 1),
  };
}

export default function AdminAvatars() {
  return <AdminAvatarsScreen />;
}

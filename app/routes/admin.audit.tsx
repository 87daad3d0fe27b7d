import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { AuditScreen } from "~/components/admin/AuditScreen";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi, userApi } from "~/lib/api.server";
import { AUDIT_PAGE, AUDIT_SERVICE, UUID, type AuditEvent, type AuditPage } from "~/lib/moderation";
import { actorNames } from "~/lib/moderation.server";
import type { Paged, User } from "~/lib/types";

export const meta = pageMeta("audit.title");

/** A `datetime-local` value (read as UTC, as every time on the admin pages) to ISO, or null. */
function isoOf(v: string | null): string | null {
  if (!v) return null;
  const d = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * The audit trail for admins (issue 15): GET /audit-events filtered by user (a uuid, or a
 * nickname looked up among the accounts), topic (from /audit-events/topics) and time, newest
 * first. The audit-service may not answer here (404): the page says so instead of failing.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const user = (url.searchParams.get("user") ?? "").trim().slice(0, 100);
  const topic = (url.searchParams.get("topic") ?? "").trim().slice(0, 200);
  const from = url.searchParams.get("from") ?? "";
  const to = url.searchParams.get("to") ?? "";
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const filters = { user, topic, from, to };

  let userUuid: string | null = null;
  let unknownUser = false;
  if (UUID.test(user)) userUuid = user;
  else if (user) {
    const q = new URLSearchParams({ limit: "1", filter: `nickname||$eqL||${user}` });
    const found = await userApi<Paged<User>>(args, `/admin/users?${q}`, { token });
    userUuid = found.ok ? (found.data.data[0]?.uuid ?? null) : null;
    unknownUser = !userUuid;
  }

  const query = new URLSearchParams({
    skip: String((page - 1) * AUDIT_PAGE),
    take: String(AUDIT_PAGE),
  });
  if (userUuid) query.set("userUuid", userUuid);
  if (topic) query.set("topic", topic);
  const fromIso = isoOf(from);
  const toIso = isoOf(to);
  if (fromIso) query.set("from", fromIso);
  if (toIso) query.set("to", toIso);

  const [events, topics] = await Promise.all([
    unknownUser
      ? null
      : callApi<AuditPage>(args, `${AUDIT_SERVICE}/audit-events?${query}`, { token }),
    callApi<string[]>(args, `${AUDIT_SERVICE}/audit-events/topics`, { token }),
  ]);
  const base = { filters, page, unknownUser, topics: topics.ok ? topics.data : [] };
  if (events && !events.ok) {
    // Not deployed yet (404) or down: a state of its own, never a crash.
    if (events.status === 404 || events.status >= 500)
      return {
        ...base,
        available: false as const,
        events: [] as AuditEvent[],
        total: 0,
        names: {} as Record<string, string>,
      };
    adminFailure(args.request, events);
  }
  const data = events?.ok ? events.data : { data: [], total: 0 };
  const names = await actorNames(
    args,
    data.data.flatMap((e) => [e.userUuid, e.actorUuid, e.targetUuid]),
    token,
  );
  return { ...base, available: true as const, events: data.data, total: data.total, names };
}

export default function AdminAudit() {
  return <AuditScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

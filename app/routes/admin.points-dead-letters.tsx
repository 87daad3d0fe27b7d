import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import type { DisplayError } from "~/lib/errors";
import { formString } from "~/lib/forms";
import { POINTS_API, type DeadLetterPage, type ReplayResult } from "~/lib/points";
import { DEAD_LETTER_STATUSES, type DeadLetterStatus } from "../../workers/db/points-schema";
import { DeadLettersScreen } from "~/components/admin/DeadLettersScreen";

export const meta = pageMeta("deadLetters.title");

const PAGE_SIZE = 25;
const BASE = `${POINTS_API}/admin/points-dead-letters`;

const isStatus = (v: string | null): v is DeadLetterStatus =>
  (DEAD_LETTER_STATUSES as readonly string[]).includes(v ?? "");

/**
 * Points dead letters for admins (issue 12): events the points queue gave up on, newest
 * death first, filtered by status, with replay and discard.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const raw = url.searchParams.get("status");
  const status = isStatus(raw) ? raw : null;
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);
  const q = new URLSearchParams({ take: String(PAGE_SIZE), skip: String((page - 1) * PAGE_SIZE) });
  if (status) q.set("status", status);
  const res = await callApi<DeadLetterPage>(args, `${BASE}?${q}`, { token });
  if (!res.ok) adminFailure(args.request, res);
  return {
    ...res.data,
    statuses: DEAD_LETTER_STATUSES,
    status,
    page,
    pageCount: Math.max(1, Math.ceil(res.data.total / PAGE_SIZE)),
  };
}

export type ActionResult = {
  intent: string;
  ok?: boolean;
  /** Replays: how many went to the queue, and the messages of those that could not. */
  replayed?: number;
  skipped?: string[];
  error?: DisplayError;
};

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  const fail = (r: { status: number } & DisplayError) => {
    if (r.status === 401) adminFailure(args.request, r);
    return data<ActionResult>({ intent, error: r }, { status: r.status });
  };
  const ids = form
    .getAll("id")
    .map((v) => Number(v))
    .filter((n) => Number.isSafeInteger(n) && n > 0);
  if (ids.length === 0) return data<ActionResult>({ intent }, { status: 400 });
  if (intent === "discard") {
    const res = await callApi(args, `${BASE}/${ids[0]}/discard`, { method: "POST", token });
    return res.ok ? { intent, ok: true } : fail(res);
  }
  // One row or every replayable row shown: the set route answers what it could not replay.
  const res = await callApi<ReplayResult>(args, `${BASE}/replay`, {
    token,
    json: { ids: ids.slice(0, 100) },
  });
  if (!res.ok) return fail(res);
  return {
    intent,
    ok: true,
    replayed: res.data.replayed.length,
    skipped: res.data.skipped.map((s) => s.message),
  };
}

export default function AdminPointsDeadLetters() {
  return <DeadLettersScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

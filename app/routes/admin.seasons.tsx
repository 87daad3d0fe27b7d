import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta, type MessageKey } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import type { DisplayError } from "~/lib/errors";
import { formString } from "~/lib/forms";
import { fromLocalInput, POINTS_API, type Season } from "~/lib/points";
import type { Paged } from "~/lib/types";
import { SeasonsScreen } from "~/components/admin/SeasonsScreen";

export const meta = pageMeta("seasons.title");

/** Seasons for admins: the list (GET /admin/seasons, latest first), create, edit and delete. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const res = await callApi<Paged<Season>>(
    args,
    `${POINTS_API}/admin/seasons?sort=startDate,DESC&limit=100`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { seasons: res.data.data, total: res.data.total, now: Date.now() };
}

export type ActionResult = {
  intent: string;
  id?: string;
  ok?: boolean;
  error?: DisplayError;
  fieldErrors?: Partial<Record<"name" | "startDate" | "endDate", MessageKey>>;
};

/** The form's dates (datetime-local, read as UTC), checked before the API sees them. */
function readWindow(form: FormData) {
  const name = formString(form, "name").trim();
  const startDate = fromLocalInput(formString(form, "startDate"));
  const endDate = fromLocalInput(formString(form, "endDate"));
  const fieldErrors: ActionResult["fieldErrors"] = {};
  if (!name) fieldErrors.name = "seasons.nameRequired";
  if (!startDate) fieldErrors.startDate = "seasons.invalidDate";
  if (!endDate) fieldErrors.endDate = "seasons.invalidDate";
  else if (startDate && Date.parse(endDate) <= Date.parse(startDate))
    fieldErrors.endDate = "seasons.endBeforeStart";
  return { name, startDate, endDate, fieldErrors };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  const id = formString(form, "id");
  const fail = (r: { status: number } & DisplayError) => {
    if (r.status === 401) adminFailure(args.request, r);
    return data<ActionResult>({ intent, id, error: r }, { status: r.status });
  };
  if (intent === "delete") {
    const res = await callApi(args, `${POINTS_API}/admin/seasons/${encodeURIComponent(id)}`, {
      method: "DELETE",
      token,
    });
    return res.ok ? { intent, id, ok: true } : fail(res);
  }
  const w = readWindow(form);
  if (Object.keys(w.fieldErrors).length)
    return data<ActionResult>({ intent, id, fieldErrors: w.fieldErrors }, { status: 400 });
  if (intent === "create") {
    const res = await callApi<Season>(args, `${POINTS_API}/points/season`, {
      token,
      json: { name: w.name, startDate: w.startDate, endDate: w.endDate },
    });
    return res.ok ? { intent, ok: true } : fail(res);
  }
  // An edit sends only what changed: a running season's start may not move, and the form
  // holds minutes only, so an unchanged field must not look changed.
  const patch: Record<string, string> = {};
  if (w.name !== formString(form, "origName")) patch.name = w.name;
  if (formString(form, "startDate") !== formString(form, "origStart"))
    patch.startDate = w.startDate!;
  if (formString(form, "endDate") !== formString(form, "origEnd")) patch.endDate = w.endDate!;
  if (Object.keys(patch).length === 0) return { intent, id, ok: true };
  const res = await callApi<Season>(args, `${POINTS_API}/points/season/${encodeURIComponent(id)}`, {
    method: "PATCH",
    token,
    json: patch,
  });
  return res.ok ? { intent, id, ok: true } : fail(res);
}

export default function AdminSeasons() {
  return <SeasonsScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

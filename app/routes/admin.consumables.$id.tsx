import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pickedFile } from "~/components/admin/AdminEditor";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { MERCH, type Consumable } from "~/lib/shop";
import { AdminConsumableScreen } from "~/components/admin/AdminConsumableScreen";

export const meta = pageMeta("adminShop.consumablesTitle");

/**
 * One consumable: `/admin/consumables/new` creates, `/admin/consumables/<id>` edits or
 * deletes. A chosen picture is uploaded first (POST /consumables/files), then the row names
 * it. The API validates everything; its messages are shown as they come.
 */
const NEW = "new";

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  if (id === NEW) return { item: null };
  const res = await callApi<Consumable>(args, `${MERCH}/consumables/${encodeURIComponent(id)}`, {
    token,
  });
  if (!res.ok) adminFailure(args.request, res);
  return { item: res.data };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const path = `${MERCH}/consumables`;
  if (formString(form, "intent") === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, {
      method: "DELETE",
      token,
    });
    if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
    return redirect("/admin/consumables");
  }
  const cost = formString(form, "tokenCost").trim();
  const body: Record<string, unknown> = {
    name: formString(form, "name").trim(),
    description: formString(form, "description").trim() || null,
    tokenCost: /^\d+$/.test(cost) ? Number(cost) : cost,
    displayType: formString(form, "displayType"),
  };
  const upload = pickedFile(form);
  if (upload) {
    const up = await callApi<{ id: string }>(args, `${path}/files`, {
      method: "POST",
      token,
      body: upload,
    });
    if (!up.ok) return data({ error: up, saved: false }, { status: up.status });
    body.fileId = up.data.id;
  } else if (form.get("removeFile") === "on") body.fileId = null;
  const creating = id === NEW;
  const res = await callApi<Consumable>(
    args,
    creating ? path : `${path}/${encodeURIComponent(id)}`,
    { method: creating ? "POST" : "PATCH", token, json: body },
  );
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  if (creating) return redirect(`/admin/consumables/${res.data.id}`);
  return { error: null, saved: true };
}

export default function AdminConsumable() {
  return <AdminConsumableScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

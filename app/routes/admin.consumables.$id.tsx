import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { AdminNav } from "~/components/AdminNav";
import { Alert, Field, Select, SubmitButton, TextArea, buttonClass, useFocusFirstError } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { MERCH, type Consumable } from "~/lib/store";

export const meta = pageMeta("adminStore.consumablesTitle");

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
  const res = await callApi<Consumable>(args, `${MERCH}/consumables/${encodeURIComponent(id)}`, { token });
  if (!res.ok) adminFailure(args.request, res);
  return { item: res.data };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const path = `${MERCH}/consumables`;
  if (formString(form, "intent") === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, { method: "DELETE", token });
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
  const file = form.get("file");
  if (file instanceof File && file.size > 0) {
    const upload = new FormData();
    upload.append("file", file, file.name);
    const up = await callApi<{ id: string }>(args, `${path}/files`, { method: "POST", token, body: upload });
    if (!up.ok) return data({ error: up, saved: false }, { status: up.status });
    body.fileId = up.data.id;
  } else if (form.get("removeFile") === "on") body.fileId = null;
  const creating = id === NEW;
  const res = await callApi<Consumable>(args, creating ? path : `${path}/${encodeURIComponent(id)}`, { method: creating ? "POST" : "PATCH", token, json: body });
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  if (creating) return redirect(`/admin/consumables/${res.data.id}`);
  return { error: null, saved: true };
}

export default function AdminConsumable() {
  const t = useT();
  const { item: c } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.error ? result : null);
  const creating = !c;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <Link to="/admin/consumables" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminStore.backConsumables")}
      </Link>
      <h1 className="mt-4 text-3xl font-extrabold tracking-tight text-white">{creating ? t("adminStore.createConsumable") : t("adminStore.editConsumable")}</h1>
      <Form method="post" encType="multipart/form-data" className="mt-6 grid gap-5 rounded-3xl border border-line bg-panel/80 p-6 sm:grid-cols-2 sm:p-8" key={c?.updatedAt ?? NEW}>
        <div className="space-y-3 sm:col-span-2">
          {result?.error && <Alert error={result.error} />}
          {result?.saved && <Alert success>{t("adminStore.saved")}</Alert>}
        </div>
        <Field className="sm:col-span-2" label={t("adminStore.field.name")} name="name" required maxLength={60} defaultValue={c?.name ?? ""} />
        <TextArea className="sm:col-span-2" label={t("adminStore.field.description")} name="description" rows={3} maxLength={500} defaultValue={c?.description ?? ""} />
        <Field label={t("adminStore.field.tokenCost")} name="tokenCost" inputMode="numeric" required defaultValue={c ? String(c.tokenCost) : ""} />
        <Select label={t("adminStore.field.displayType")} name="displayType" defaultValue={c?.displayType ?? "small"}>
          <option value="small">{t("adminStore.display.small")}</option>
          <option value="cover">{t("adminStore.display.cover")}</option>
        </Select>
        <div className="flex items-center gap-4 sm:col-span-2">
          {c?.imageUrl && <img src={c.imageUrl} alt="" className="size-20 rounded-xl object-cover" data-testid="consumable-image" />}
          <div className="min-w-0 flex-1">
            <label htmlFor="consumable-file" className="mb-1.5 block text-sm font-medium text-ink-100">
              {t("adminStore.field.file")}
            </label>
            <input id="consumable-file" type="file" name="file" accept="image/png,image/jpeg,image/gif,image/webp" className="block w-full text-sm text-ink-100 file:mr-3 file:rounded-full file:border-0 file:bg-white/10 file:px-4 file:py-2 file:font-semibold file:text-white" />
            <p className="mt-1 text-xs text-ink-300">{t("adminStore.fileHint")}</p>
          </div>
        </div>
        {c?.imageUrl && (
          <label className="flex items-center gap-3 text-ink-100 sm:col-span-2">
            <input type="checkbox" name="removeFile" className="size-5 accent-brand" />
            {t("adminStore.removeFile")}
          </label>
        )}
        <div className="flex flex-wrap gap-3 sm:col-span-2">
          <SubmitButton label={creating ? "adminStore.create" : "adminStore.save"} pendingLabel="adminStore.saving" intent="save" />
        </div>
      </Form>
      {!creating && (
        <Form method="post" className="mt-6">
          <SubmitButton label="adminStore.delete" pendingLabel="adminStore.deleting" intent="delete" variant="secondary" />
        </Form>
      )}
    </div>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AdminNameFields } from "~/components/admin/AdminNameFields";
import { AdminEditor, AdminImageInput, pickedFile } from "~/components/admin/AdminEditor";
import { Field, Select } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { MERCH, type Consumable } from "~/lib/shop";

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
  const t = useT();
  const { item: c } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const creating = !c;
  return (
    <AdminEditor
      backTo="/admin/consumables"
      backLabel={t("adminShop.backConsumables")}
      title={creating ? t("adminShop.createConsumable") : t("adminShop.editConsumable")}
      creating={creating}
      formKey={c?.updatedAt ?? NEW}
      result={result}
    >
      <AdminNameFields record={c} nameMax={60} descriptionMax={500} />
      <Field
        label={t("adminShop.field.tokenCost")}
        name="tokenCost"
        inputMode="numeric"
        required
        defaultValue={c ? String(c.tokenCost) : ""}
      />
      <Select
        label={t("adminShop.field.displayType")}
        name="displayType"
        defaultValue={c?.displayType ?? "small"}
      >
        <option value="small">{t("adminShop.display.small")}</option>
        <option value="cover">{t("adminShop.display.cover")}</option>
      </Select>
      <AdminImageInput
        id="consumable-file"
        label={t("adminShop.field.file")}
        hint={t("adminShop.fileHint")}
        src={c?.imageUrl}
        testId="consumable-image"
      />
      {c?.imageUrl && (
        <label className="flex items-center gap-3 text-ink-100 sm:col-span-2">
          <input type="checkbox" name="removeFile" className="size-5 accent-brand" />
          {t("adminShop.removeFile")}
        </label>
      )}
    </AdminEditor>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

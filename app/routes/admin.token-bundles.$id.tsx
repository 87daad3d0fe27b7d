import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { AdminNav } from "~/components/AdminNav";
import { Alert, Field, SubmitButton, TextArea, buttonClass, useFocusFirstError } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { MERCH, type TokenBundle } from "~/lib/store";

export const meta = pageMeta("adminStore.bundlesTitle");

/**
 * One token bundle: `/admin/token-bundles/new` creates, `/admin/token-bundles/<id>` edits,
 * replaces the thumbnail (PATCH .../thumbnail) or deletes (the spec's POST to the bundle).
 */
const NEW = "new";

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  if (id === NEW) return { bundle: null };
  const res = await callApi<TokenBundle>(args, `${MERCH}/token-bundles/${encodeURIComponent(id)}`, { token });
  if (!res.ok) adminFailure(args.request, res);
  return { bundle: res.data };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const path = `${MERCH}/token-bundles`;
  if (formString(form, "intent") === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, { method: "POST", token });
    if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
    return redirect("/admin/token-bundles");
  }
  const amount = formString(form, "tokenAmount").trim();
  const body = {
    productId: formString(form, "productId").trim(),
    name: formString(form, "name").trim(),
    description: formString(form, "description").trim() || null,
    tokenAmount: /^\d+$/.test(amount) ? Number(amount) : amount,
  };
  const creating = id === NEW;
  const res = await callApi<TokenBundle>(args, creating ? path : `${path}/${encodeURIComponent(id)}`, { method: creating ? "POST" : "PATCH", token, json: body });
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  const file = form.get("file");
  if (file instanceof File && file.size > 0) {
    const upload = new FormData();
    upload.append("file", file, file.name);
    const up = await callApi<TokenBundle>(args, `${path}/${res.data.id}/thumbnail`, { method: "PATCH", token, body: upload });
    if (!up.ok) return data({ error: up, saved: false }, { status: up.status });
  }
  if (creating) return redirect(`/admin/token-bundles/${res.data.id}`);
  return { error: null, saved: true };
}

export default function AdminTokenBundle() {
  const t = useT();
  const { bundle: b } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.error ? result : null);
  const creating = !b;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <Link to="/admin/token-bundles" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminStore.backBundles")}
      </Link>
      <h1 className="mt-4 text-3xl font-extrabold tracking-tight text-white">{creating ? t("adminStore.createBundle") : t("adminStore.editBundle")}</h1>
      <Form method="post" encType="multipart/form-data" className="mt-6 grid gap-5 rounded-3xl border border-line bg-panel/80 p-6 sm:grid-cols-2 sm:p-8" key={b?.updatedAt ?? NEW}>
        <div className="space-y-3 sm:col-span-2">
          {result?.error && <Alert error={result.error} />}
          {result?.saved && <Alert success>{t("adminStore.saved")}</Alert>}
        </div>
        <Field className="sm:col-span-2" label={t("adminStore.field.name")} name="name" required maxLength={100} defaultValue={b?.name ?? ""} />
        <TextArea className="sm:col-span-2" label={t("adminStore.field.description")} name="description" rows={3} maxLength={1000} defaultValue={b?.description ?? ""} />
        <Field label={t("adminStore.field.tokenAmount")} name="tokenAmount" inputMode="numeric" required defaultValue={b ? String(b.tokenAmount) : ""} />
        <Field label={t("adminStore.field.productId")} name="productId" required maxLength={100} defaultValue={b?.productId ?? ""} hint={t("adminStore.productHint")} />
        <div className="flex items-center gap-4 sm:col-span-2">
          {b?.thumbnailUrl && <img src={b.thumbnailUrl} alt="" className="size-20 rounded-xl object-cover" data-testid="bundle-thumbnail" />}
          <div className="min-w-0 flex-1">
            <label htmlFor="bundle-file" className="mb-1.5 block text-sm font-medium text-ink-100">
              {t("adminStore.field.thumbnail")}
            </label>
            <input id="bundle-file" type="file" name="file" accept="image/png,image/jpeg,image/gif,image/webp" className="block w-full text-sm text-ink-100 file:mr-3 file:rounded-full file:border-0 file:bg-white/10 file:px-4 file:py-2 file:font-semibold file:text-white" />
            <p className="mt-1 text-xs text-ink-300">{t("adminStore.thumbHint")}</p>
          </div>
        </div>
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

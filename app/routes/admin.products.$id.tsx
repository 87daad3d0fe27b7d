import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import {
  Alert,
  Field,
  Select,
  SubmitButton,
  TextArea,
  buttonClass,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { PAYMENT_SERVICE, type Product } from "~/lib/payments";

export const meta = pageMeta("adminProducts.title");

/**
 * One product: `/admin/products/new` creates, `/admin/products/<id>` edits or deletes.
 * The API validates everything (a plan needs its level, and so on); its messages are shown
 * as they come.
 */
const NEW = "new";

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  if (id === NEW) return { product: null };
  const res = await callApi<Product>(
    args,
    `${PAYMENT_SERVICE}/api/v1/products/${encodeURIComponent(id)}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { product: res.data };
}

/** The form's fields as the API takes them: "" clears an optional text, the price is cents. */
function bodyOf(form: FormData, creating: boolean) {
  const optional = (name: string) => formString(form, name).trim() || null;
  const price = formString(form, "price").trim();
  const body: Record<string, unknown> = {
    name: formString(form, "name").trim(),
    description: optional("description"),
    paymentType: formString(form, "paymentType"),
    price: /^\d+$/.test(price) ? Number(price) : price,
    currency: formString(form, "currency").trim() || "usd",
    subscriptionLevel: optional("subscriptionLevel"),
    stripePriceId: optional("stripePriceId"),
    active: form.get("active") === "on",
  };
  if (creating && optional("id")) body.id = optional("id");
  return body;
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  const path = `${PAYMENT_SERVICE}/api/v1/products`;
  if (intent === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, {
      method: "DELETE",
      token,
    });
    if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
    return redirect("/admin/products");
  }
  const creating = id === NEW;
  const res = await callApi<Product>(args, creating ? path : `${path}/${encodeURIComponent(id)}`, {
    method: creating ? "POST" : "PATCH",
    token,
    json: bodyOf(form, creating),
  });
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  if (creating) return redirect(`/admin/products/${encodeURIComponent(res.data.id)}`);
  return { error: null, saved: true };
}

export default function AdminProduct() {
  const t = useT();
  const { product: p } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.error ? result : null);
  const creating = !p;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/admin/products" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminProducts.back")}
      </Link>
      <PageTitle size="fixed" className="mt-4">
        {creating ? t("adminProducts.createHeading") : t("adminProducts.editHeading")}
      </PageTitle>
      {p?.tokenBundle && (
        <p className="mt-2 text-ink-200">
          {t("adminProducts.bundleNote", {
            name: p.tokenBundle.name,
            count: p.tokenBundle.tokenAmount,
          })}
        </p>
      )}

      <Form
        method="post"
        className="mt-6 grid gap-5 rounded-3xl border border-line bg-panel/80 p-6 sm:grid-cols-2 sm:p-8"
        key={p?.updatedAt ?? NEW}
      >
        <div className="space-y-3 sm:col-span-2">
          {result?.error && <Alert error={result.error} />}
          {result?.saved && <Alert success>{t("adminProducts.saved")}</Alert>}
        </div>
        {creating && (
          <Field
            className="sm:col-span-2"
            label={t("adminProducts.field.id")}
            name="id"
            autoComplete="off"
          />
        )}
        <Field
          className="sm:col-span-2"
          label={t("adminProducts.field.name")}
          name="name"
          required
          maxLength={100}
          defaultValue={p?.name ?? ""}
        />
        <TextArea
          className="sm:col-span-2"
          label={t("adminProducts.field.description")}
          name="description"
          rows={3}
          maxLength={1000}
          defaultValue={p?.description ?? ""}
        />
        <Select
          label={t("adminProducts.field.paymentType")}
          name="paymentType"
          defaultValue={p?.paymentType ?? "one_time"}
        >
          <option value="one_time">{t("adminProducts.type.one_time")}</option>
          <option value="recurring">{t("adminProducts.type.recurring")}</option>
        </Select>
        <Field
          label={t("adminProducts.field.price")}
          name="price"
          inputMode="numeric"
          required
          defaultValue={p ? String(p.price) : ""}
        />
        <Field
          label={t("adminProducts.field.currency")}
          name="currency"
          maxLength={3}
          defaultValue={p?.currency ?? "usd"}
        />
        <Field
          label={t("adminProducts.field.level")}
          name="subscriptionLevel"
          maxLength={40}
          defaultValue={p?.subscriptionLevel ?? ""}
        />
        <Field
          className="sm:col-span-2"
          label={t("adminProducts.field.stripePriceId")}
          name="stripePriceId"
          defaultValue={p?.stripePriceId ?? ""}
        />
        <label className="flex items-center gap-3 text-ink-100 sm:col-span-2">
          <input
            type="checkbox"
            name="active"
            defaultChecked={p?.active ?? true}
            className="size-5 accent-brand"
          />
          {t("adminProducts.field.active")}
        </label>
        <div className="flex flex-wrap gap-3 sm:col-span-2">
          {creating ? (
            <SubmitButton
              label="adminProducts.create"
              pendingLabel="adminProducts.creating"
              intent="save"
            />
          ) : (
            <SubmitButton
              label="adminProducts.save"
              pendingLabel="adminProducts.saving"
              intent="save"
            />
          )}
        </div>
      </Form>

      {!creating && (
        <Form method="post" className="mt-6">
          <SubmitButton
            label="adminProducts.delete"
            pendingLabel="adminProducts.deleting"
            intent="delete"
            variant="secondary"
          />
        </Form>
      )}
    </div>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

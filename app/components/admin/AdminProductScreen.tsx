import type { loader, action } from "~/routes/admin.products.$id";
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
import { useT } from "~/i18n";

export function AdminProductScreen() {
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
        key={p?.updatedAt ?? "new"}
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

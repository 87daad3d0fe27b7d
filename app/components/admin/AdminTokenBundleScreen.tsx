import type { loader, action } from "~/routes/admin.token-bundles.$id";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AdminNameFields } from "~/components/admin/AdminNameFields";
import { AdminEditor, AdminImageInput } from "~/components/admin/AdminEditor";
import { Field } from "~/components/ui";
import { useT } from "~/i18n";

export function AdminTokenBundleScreen() {
  const t = useT();
  const { bundle: b } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const creating = !b;
  return (
    <AdminEditor
      backTo="/admin/token-bundles"
      backLabel={t("adminShop.backBundles")}
      title={creating ? t("adminShop.createBundle") : t("adminShop.editBundle")}
      creating={creating}
      formKey={b?.updatedAt ?? "new"}
      result={result}
    >
      <AdminNameFields record={b} nameMax={100} descriptionMax={1000} />
      <Field
        label={t("adminShop.field.tokenAmount")}
        name="tokenAmount"
        inputMode="numeric"
        required
        defaultValue={b ? String(b.tokenAmount) : ""}
      />
      <Field
        label={t("adminShop.field.productId")}
        name="productId"
        required
        maxLength={100}
        defaultValue={b?.productId ?? ""}
        hint={t("adminShop.productHint")}
      />
      <AdminImageInput
        id="bundle-file"
        label={t("adminShop.field.thumbnail")}
        hint={t("adminShop.thumbHint")}
        src={b?.thumbnailUrl}
        testId="bundle-thumbnail"
      />
    </AdminEditor>
  );
}

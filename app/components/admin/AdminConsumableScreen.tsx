import type { loader, action } from "~/routes/admin.consumables.$id";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AdminNameFields } from "~/components/admin/AdminNameFields";
import { AdminEditor, AdminImageInput } from "~/components/admin/AdminEditor";
import { Field, Select } from "~/components/ui";
import { useT } from "~/i18n";

export function AdminConsumableScreen() {
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
      formKey={c?.updatedAt ?? "new"}
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

import { Field, TextArea } from "~/components/ui";
import { useT } from "~/i18n";

/**
 * The name and description fields a token-shop editor (consumables, bundles) starts with,
 * filled from the record being edited; the length limits are the API's for that record.
 */
export function AdminNameFields({
  record,
  nameMax,
  descriptionMax,
}: {
  record: { name: string; description?: string | null } | null;
  nameMax: number;
  descriptionMax: number;
}) {
  const t = useT();
  return (
    <>
      <Field
        className="sm:col-span-2"
        label={t("adminShop.field.name")}
        name="name"
        required
        maxLength={nameMax}
        defaultValue={record?.name ?? ""}
      />
      <TextArea
        className="sm:col-span-2"
        label={t("adminShop.field.description")}
        name="description"
        rows={3}
        maxLength={descriptionMax}
        defaultValue={record?.description ?? ""}
      />
    </>
  );
}

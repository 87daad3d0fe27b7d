import { Field } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";

/** The e-mail address field of the sign-in, sign-up and forgot-password forms. */
export function EmailField({ defaultValue, error }: { defaultValue?: string; error?: MessageKey }) {
  const t = useT();
  return (
    <Field
      label={t("field.email")}
      name="email"
      type="email"
      autoComplete="email"
      required
      defaultValue={defaultValue}
      error={error && t(error)}
    />
  );
}

import { Field } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";

/** The new password typed again (reset, change). */
export function ConfirmPasswordField({ error }: { error?: MessageKey }) {
  const t = useT();
  return (
    <Field
      label={t("field.confirmPassword")}
      name="confirmPassword"
      type="password"
      autoComplete="new-password"
      required
      error={error && t(error)}
    />
  );
}

import { Field } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";

/**
 * A password being chosen (sign-up, reset, change): 8 to 128 characters, with the rule as
 * its hint.
 */
export function NewPasswordField({
  label,
  name,
  error,
}: {
  label: MessageKey;
  name: string;
  error?: MessageKey;
}) {
  const t = useT();
  return (
    <Field
      label={t(label)}
      name={name}
      type="password"
      autoComplete="new-password"
      required
      minLength={8}
      maxLength={128}
      hint={t("hint.password")}
      error={error && t(error)}
    />
  );
}

import type { action } from "~/routes/forgot-password";
import { Form, Link, useActionData } from "@remix-run/react";
import { Alert, AuthLayout, buttonClass, SubmitButton, useFocusFirstError } from "~/components/ui";
import { useT } from "~/i18n";
import { EmailField } from "~/components/auth/EmailField";

export function ForgotPasswordScreen() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  return (
    <AuthLayout title={t("forgot.heading")} lede={t("forgot.lede")}>
      {result?.ok ? (
        <Alert success>
          <p>{t("forgot.sent", { email: result.detail ?? "" })}</p>
        </Alert>
      ) : (
        <Form method="post" noValidate className="space-y-5">
          <Alert error={result?.error} />
          <EmailField defaultValue={result?.values?.email} error={result?.fieldErrors?.email} />
          <SubmitButton label="forgot.submit" pendingLabel="forgot.pending" className="w-full" />
        </Form>
      )}
      <p className="mt-6 text-center">
        <Link to="/login" className={buttonClass.link}>
          {t("forgot.backToLogin")}
        </Link>
      </p>
    </AuthLayout>
  );
}

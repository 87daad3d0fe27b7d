import type { loader, action } from "~/routes/reset-password";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Alert, AuthLayout, buttonClass, SubmitButton, useFocusFirstError } from "~/components/ui";
import { useT } from "~/i18n";
import { NewPasswordField } from "~/components/auth/NewPasswordField";
import { ConfirmPasswordField } from "~/components/auth/ConfirmPasswordField";

export function ResetPasswordScreen() {
  const t = useT();
  const { token } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  const fe = result?.fieldErrors ?? {};

  if (result?.ok) {
    return (
      <AuthLayout title={t("reset.heading")}>
        <Alert success>
          <p>{t("reset.done")}</p>
        </Alert>
        <Link to="/login" className={`${buttonClass.primary} mt-6 w-full`}>
          {t("reset.loginLink")}
        </Link>
      </AuthLayout>
    );
  }
  if (!token) {
    return (
      <AuthLayout title={t("reset.heading")}>
        <Alert error={{ status: 400, message: t("reset.missingToken"), generic: false }} />
        <Link to="/forgot-password" className={`${buttonClass.primary} mt-6 w-full`}>
          {t("reset.requestNew")}
        </Link>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title={t("reset.heading")} lede={t("reset.lede")}>
      <Form method="post" noValidate className="space-y-5">
        <input type="hidden" name="token" value={token} />
        <Alert error={result?.error} />
        {result?.error && (
          <p className="text-sm">
            <Link to="/forgot-password" className={buttonClass.link}>
              {t("reset.requestNew")}
            </Link>
          </p>
        )}
        <NewPasswordField label="field.newPassword" name="password" error={fe.password} />
        <ConfirmPasswordField error={fe.confirmPassword} />
        <SubmitButton label="reset.submit" pendingLabel="reset.pending" className="w-full" />
      </Form>
    </AuthLayout>
  );
}

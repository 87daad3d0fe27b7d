import type { loader, action } from "~/routes/reset-password";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import {
  Alert,
  AuthLayout,
  buttonClass,
  Field,
  SubmitButton,
  useFocusFirstError,
} from "~/components/ui";
import { useT } from "~/i18n";

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
        <Field
          label={t("field.newPassword")}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={128}
          hint={t("hint.password")}
          error={fe.password && t(fe.password)}
        />
        <Field
          label={t("field.confirmPassword")}
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          required
          error={fe.confirmPassword && t(fe.confirmPassword)}
        />
        <SubmitButton label="reset.submit" pendingLabel="reset.pending" className="w-full" />
      </Form>
    </AuthLayout>
  );
}

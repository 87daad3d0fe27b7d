import { data, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useActionData } from "@remix-run/react";
import {
  Alert,
  AuthLayout,
  buttonClass,
  Field,
  SubmitButton,
  useFocusFirstError,
} from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkEmail, formString, type FormState } from "~/lib/forms";

export const meta = pageMeta("forgot.title");

export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const email = formString(form, "email").trim();
  const problem = checkEmail(email);
  if (problem)
    return data<FormState>({ fieldErrors: { email: problem }, values: { email } }, { status: 400 });
  const res = await userApi<{ message?: string }>(args, "/users/forgot-password", {
    method: "POST",
    json: { email },
  });
  if (!res.ok) return data<FormState>({ error: res, values: { email } }, { status: res.status });
  // The same answer whether or not the address has an account: nothing to enumerate.
  return data<FormState>({ ok: true, detail: email });
}

export default function ForgotPassword() {
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
          <Field
            label={t("field.email")}
            name="email"
            type="email"
            autoComplete="email"
            required
            defaultValue={result?.values?.email}
            error={result?.fieldErrors?.email && t(result.fieldErrors.email)}
          />
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

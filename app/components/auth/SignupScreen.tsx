import type { action } from "~/routes/signup";
import { Form, Link, useActionData, useSearchParams } from "@remix-run/react";
import {
  Alert,
  AuthLayout,
  buttonClass,
  Field,
  SubmitButton,
  useFocusFirstError,
} from "~/components/ui";
import { useT } from "~/i18n";
import { withRedirectTo } from "~/lib/redirects";
import { EmailField } from "~/components/auth/EmailField";
import { NewPasswordField } from "~/components/auth/NewPasswordField";

export function SignupScreen() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  const [params] = useSearchParams();
  const redirectTo = params.get("redirectTo");
  const fe = result?.fieldErrors ?? {};
  return (
    <AuthLayout title={t("signup.heading")} lede={t("signup.lede")}>
      <Form method="post" noValidate className="space-y-5">
        <Alert error={result?.error} />
        <EmailField defaultValue={result?.values?.email} error={fe.email} />
        <NewPasswordField label="field.password" name="password" error={fe.password} />
        <Field
          label={t("field.nicknameOptional")}
          name="nickname"
          autoComplete="nickname"
          maxLength={30}
          hint={t("hint.nickname")}
          defaultValue={result?.values?.nickname}
        />
        <SubmitButton label="signup.submit" pendingLabel="signup.pending" className="w-full" />
      </Form>
      <p className="mt-6 text-center text-ink-200">
        {t("signup.haveAccount")}{" "}
        <Link to={withRedirectTo("/login", redirectTo)} className={buttonClass.link}>
          {t("signup.loginLink")}
        </Link>
      </p>
    </AuthLayout>
  );
}

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
        <Field
          label={t("field.email")}
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={result?.values?.email}
          error={fe.email && t(fe.email)}
        />
        <Field
          label={t("field.password")}
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
        <Link
          to={redirectTo ? `/login?redirectTo=${encodeURIComponent(redirectTo)}` : "/login"}
          className={buttonClass.link}
        >
          {t("signup.loginLink")}
        </Link>
      </p>
    </AuthLayout>
  );
}

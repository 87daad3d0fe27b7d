import type { action, loader } from "~/routes/login";
import { Smartphone } from "lucide-react";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { DiscordSignIn } from "~/components/auth/DiscordSignIn";
import { FAILURES, failureKey, type Failure } from "~/lib/connections";
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

export function LoginScreen() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  const [params] = useSearchParams();
  const redirectTo = params.get("redirectTo") ?? "";
  const fe = result?.fieldErrors ?? {};
  const { discord } = useLoaderData<typeof loader>() ?? { discord: false };
  const failed = params.get("failed");
  const discordFailed = FAILURES.includes(failed as Failure)
    ? t(failureKey(failed as Failure), { name: "Discord" })
    : null;
  return (
    <AuthLayout title={t("login.heading")} lede={t("login.lede")}>
      <Form method="post" noValidate className="space-y-5">
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <Alert error={result?.error} />
        <EmailField defaultValue={result?.values?.email} error={fe.email} />
        <Field
          label={t("field.password")}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={fe.password && t(fe.password)}
        />
        <div className="flex justify-end">
          <Link to="/forgot-password" className={`${buttonClass.link} text-sm`}>
            {t("login.forgot")}
          </Link>
        </div>
        <SubmitButton label="login.submit" pendingLabel="login.pending" className="w-full" />
      </Form>
      <Link
        to={withRedirectTo("/login/phone", redirectTo)}
        className={`${buttonClass.secondary} mt-3 w-full`}
        data-testid="phone-login-link"
      >
        <Smartphone aria-hidden className="size-4" />
        {t("phone.loginLink")}
      </Link>
      {discord && <DiscordSignIn failed={discordFailed} />}
      <p className="mt-6 text-center text-ink-200">
        {t("login.noAccount")}{" "}
        <Link to={withRedirectTo("/signup", redirectTo)} className={buttonClass.link}>
          {t("login.signupLink")}
        </Link>
      </p>
    </AuthLayout>
  );
}

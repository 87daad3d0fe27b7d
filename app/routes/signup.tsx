import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { Form, Link, useActionData, useSearchParams } from "@remix-run/react";
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
import { checkEmail, checkNewPassword, formString, hasErrors, type FormState } from "~/lib/forms";
import { getSession, safeRedirect, setTokenCookie } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";

export const meta = pageMeta("signup.title");

export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  if (session.user)
    throw redirect(safeRedirect(new URL(args.request.url).searchParams.get("redirectTo")));
  return null;
}

/** Creates the account, signs the user in, and sends them to enter the e-mailed code. */
export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const email = formString(form, "email").trim();
  const password = formString(form, "password");
  const nickname = formString(form, "nickname").trim();
  const values = { email, nickname };
  const fieldErrors = { email: checkEmail(email), password: checkNewPassword(password) };
  if (hasErrors(fieldErrors)) return data<FormState>({ fieldErrors, values }, { status: 400 });

  const res = await userApi<AuthResult>(args, "/users/sign-up", {
    method: "POST",
    json: nickname ? { email, password, nickname } : { email, password },
  });
  if (!res.ok) return data<FormState>({ error: res, values }, { status: res.status });
  return redirect("/verify-email", {
    headers: { "Set-Cookie": setTokenCookie(args.request, res.data.token) },
  });
}

export default function Signup() {
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

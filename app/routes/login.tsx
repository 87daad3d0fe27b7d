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
import { checkEmail, formString, hasErrors, type FormState } from "~/lib/forms";
import { getSession, safeRedirect, setTokenCookie } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";

export const meta = pageMeta("login.title");

export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  if (session.user)
    throw redirect(safeRedirect(new URL(args.request.url).searchParams.get("redirectTo")));
  return null;
}

export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const email = formString(form, "email").trim();
  const password = formString(form, "password");
  const fieldErrors = {
    email: checkEmail(email),
    password: password ? undefined : ("validation.passwordRequired" as const),
  };
  if (hasErrors(fieldErrors))
    return data<FormState>({ fieldErrors, values: { email } }, { status: 400 });

  const res = await userApi<AuthResult>(args, "/auth/login", {
    method: "POST",
    json: { email, password },
  });
  if (!res.ok) return data<FormState>({ error: res, values: { email } }, { status: res.status });
  return redirect(safeRedirect(form.get("redirectTo")), {
    headers: { "Set-Cookie": setTokenCookie(args.request, res.data.token) },
  });
}

export default function Login() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  const [params] = useSearchParams();
  const redirectTo = params.get("redirectTo") ?? "";
  const fe = result?.fieldErrors ?? {};
  const signupHref = redirectTo
    ? `/signup?redirectTo=${encodeURIComponent(redirectTo)}`
    : "/signup";
  return (
    <AuthLayout title={t("login.heading")} lede={t("login.lede")}>
      <Form method="post" noValidate className="space-y-5">
        <input type="hidden" name="redirectTo" value={redirectTo} />
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
      <p className="mt-6 text-center text-ink-200">
        {t("login.noAccount")}{" "}
        <Link to={signupHref} className={buttonClass.link}>
          {t("login.signupLink")}
        </Link>
      </p>
    </AuthLayout>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

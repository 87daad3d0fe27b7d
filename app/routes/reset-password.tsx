import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkNewPassword, formString, hasErrors, type FormState } from "~/lib/forms";
import { ResetPasswordScreen } from "~/components/auth/ResetPasswordScreen";

export const meta = pageMeta("reset.title");

/** The token comes from the e-mailed link: /reset-password?token=... */
export async function loader({ request }: LoaderFunctionArgs) {
  return { token: new URL(request.url).searchParams.get("token") ?? "" };
}

export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const token = formString(form, "token");
  const password = formString(form, "password");
  const confirm = formString(form, "confirmPassword");
  const fieldErrors = {
    password: checkNewPassword(password),
    confirmPassword:
      password && confirm !== password ? ("validation.passwordMismatch" as const) : undefined,
  };
  if (hasErrors(fieldErrors)) return data<FormState>({ fieldErrors }, { status: 400 });
  const res = await userApi(args, "/users/reset-password", {
    method: "POST",
    json: { token, password },
  });
  if (!res.ok) return data<FormState>({ error: res }, { status: res.status });
  return data<FormState>({ ok: true });
}

export default function ResetPassword() {
  return <ResetPasswordScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

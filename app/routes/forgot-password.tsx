import { data, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkEmail, formString, type FormState } from "~/lib/forms";
import { ForgotPasswordScreen } from "~/components/auth/ForgotPasswordScreen";

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
  return <ForgotPasswordScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

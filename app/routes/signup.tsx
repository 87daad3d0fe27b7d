import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkEmail, checkNewPassword, formString, hasErrors, type FormState } from "~/lib/forms";
import { redirectSignedIn, setTokenCookie } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";
import { SignupScreen } from "~/components/auth/SignupScreen";

export const meta = pageMeta("signup.title");

export async function loader(args: LoaderFunctionArgs) {
  return redirectSignedIn(args);
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
  return <SignupScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

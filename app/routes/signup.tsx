import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkEmail, checkNewPassword, formString, hasErrors, type FormState } from "~/lib/forms";
import { redirectSignedIn, startSession } from "~/lib/session.server";
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
  // The account exists now; without a session the person signs in on the login page.
  const cookie = await startSession(args, res.data.token);
  if (!cookie) return redirect("/login");
  return redirect("/verify-email", { headers: { "Set-Cookie": cookie } });
}

export default function Signup() {
  return <SignupScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

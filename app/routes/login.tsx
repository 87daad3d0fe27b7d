import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { checkEmail, formString, hasErrors, type FormState } from "~/lib/forms";
import { displayError } from "~/lib/errors";
import { redirectSignedIn, safeRedirect, startSession } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";
import { LoginScreen } from "~/components/auth/LoginScreen";

export const meta = pageMeta("login.title");

export async function loader(args: LoaderFunctionArgs) {
  await redirectSignedIn(args);
  // Whether "Continue with Discord" is offered (issue 16): only when Discord is configured.
  const providers = await userApi<{ discord: boolean }>(args, "/auth/sign-in-providers");
  return { discord: providers.ok && providers.data.discord };
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
  const cookie = await startSession(args, res.data.token);
  if (!cookie)
    return data<FormState>({ error: displayError(503, null), values: { email } }, { status: 503 });
  return redirect(safeRedirect(form.get("redirectTo")), { headers: { "Set-Cookie": cookie } });
}

export default function Login() {
  return <LoginScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

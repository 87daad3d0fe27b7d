import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { formString, type FormState } from "~/lib/forms";
import { requireUser } from "~/lib/session.server";
import { VerifyEmailScreen } from "~/components/auth/VerifyEmailScreen";

export const meta = pageMeta("verify.title");

export async function loader(args: LoaderFunctionArgs) {
  const { user } = await requireUser(args);
  // The e-mailed link names the address (?email=); it may be one of the user's other e-mails.
  const asked = (new URL(args.request.url).searchParams.get("email") ?? "").trim();
  const email = asked || user.email || "";
  const isLogin = email.toLowerCase() === (user.email ?? "").toLowerCase();
  return { email, verified: isLogin && !!user.emailVerified };
}

/** Two buttons, two intents: check the code, or send a new one. */
export async function action(args: ActionFunctionArgs) {
  const { user, token } = await requireUser(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent") || "verify";
  const email = formString(form, "email").trim() || user.email || "";

  if (intent === "resend") {
    const res = await userApi(args, "/users/emails/verification-email", {
      method: "POST",
      token,
      json: { email },
    });
    if (!res.ok) return data<FormState>({ intent, error: res }, { status: res.status });
    return data<FormState>({ intent, ok: true, detail: email });
  }

  const code = formString(form, "code").replace(/\s+/g, "");
  if (!/^\d{6}$/.test(code))
    return data<FormState>(
      { intent, fieldErrors: { code: "validation.codeFormat" }, values: { code } },
      { status: 400 },
    );
  const res = await userApi(args, "/users/emails/verify", {
    method: "POST",
    token,
    json: { email, code },
  });
  if (!res.ok)
    return data<FormState>({ intent, error: res, values: { code } }, { status: res.status });
  return data<FormState>({ intent, ok: true });
}

export default function VerifyEmail() {
  return <VerifyEmailScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

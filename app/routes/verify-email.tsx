import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { MailCheck } from "lucide-react";
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
import { formString, type FormState } from "~/lib/forms";
import { requireUser } from "~/lib/session.server";

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
  const t = useT();
  const { email, verified } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.ok ? null : result);
  const done = verified || (result?.intent === "verify" && result.ok);

  if (!email || done) {
    return (
      <AuthLayout title={t("verify.title")}>
        <div className="flex flex-col items-center text-center">
          <span className="grid size-16 place-items-center rounded-full bg-success/15 text-success">
            <MailCheck aria-hidden className="size-8" />
          </span>
          <p role="status" className="mt-4 text-lg text-ink-100">
            {!email
              ? t("verify.noEmail")
              : verified && !result
                ? t("verify.already", { email })
                : t("verify.done")}
          </p>
          <Link to="/profile" className={`${buttonClass.primary} mt-6 w-full`}>
            {t("verify.continue")}
          </Link>
        </div>
      </AuthLayout>
    );
  }

  const resent = result?.intent === "resend" && result.ok;
  return (
    <AuthLayout title={t("verify.heading")} lede={t("verify.lede", { email })}>
      <Form method="post" noValidate className="space-y-5" id="verify-form">
        <input type="hidden" name="email" value={email} />
        <Alert error={result?.error} />
        {resent && (
          <Alert success>
            <p>{t("verify.resent", { email: result.detail ?? email })}</p>
          </Alert>
        )}
        <Field
          label={t("field.code")}
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          hint={t("hint.code")}
          defaultValue={result?.values?.code}
          error={result?.fieldErrors?.code && t(result.fieldErrors.code)}
          className="[&_input]:text-center [&_input]:font-mono [&_input]:text-2xl [&_input]:tracking-[0.5em]"
        />
        <SubmitButton
          label="verify.submit"
          pendingLabel="verify.pending"
          intent="verify"
          className="w-full"
        />
      </Form>
      <div className="mt-6 border-t border-line pt-5 text-center">
        <p className="text-sm text-ink-200">{t("verify.noCode")}</p>
        <Form method="post" className="mt-3">
          <input type="hidden" name="email" value={email} />
          <SubmitButton
            label="verify.resend"
            pendingLabel="verify.resendPending"
            intent="resend"
            variant="secondary"
          />
        </Form>
      </div>
    </AuthLayout>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

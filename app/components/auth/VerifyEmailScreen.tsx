import type { loader, action } from "~/routes/verify-email";
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
import { useT } from "~/i18n";

export function VerifyEmailScreen() {
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

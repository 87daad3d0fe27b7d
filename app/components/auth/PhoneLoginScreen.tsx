import type { action } from "~/routes/login_.phone";
import { Form, Link, useActionData, useSearchParams } from "@remix-run/react";
import { MessageCircle, MessageSquare } from "lucide-react";
import {
  Alert,
  AuthLayout,
  buttonClass,
  Field,
  SubmitButton,
  useFocusFirstError,
} from "~/components/ui";
import { useT } from "~/i18n";
import { withRedirectTo } from "~/lib/redirects";

/**
 * Sign in with a phone number: the number and a channel, then the texted code (and a name,
 * used only when the number is new). One form at a time; the first step's values ride along
 * hidden in the second, so a resend or a wrong code never loses them.
 */
export function PhoneLoginScreen() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result?.fieldErrors || result?.error ? result : null);
  const [params] = useSearchParams();
  const redirectTo = params.get("redirectTo") ?? "";
  const values = result?.values ?? {};
  const channel = values.channel === "whatsapp" ? "whatsapp" : "sms";
  const codeStep = !!result?.ok;
  const fe = result?.fieldErrors ?? {};

  return (
    <AuthLayout title={t("phone.heading")} lede={t("phone.lede")}>
      {!codeStep ? (
        <Form method="post" noValidate className="space-y-5">
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <input type="hidden" name="intent" value="send" />
          <Alert error={result?.error} />
          <Field
            label={t("phone.field")}
            name="phone"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            placeholder="+34 612 34 56 78"
            required
            maxLength={40}
            hint={t("phone.hint")}
            defaultValue={values.phone}
            error={fe.phone && t(fe.phone)}
          />
          <fieldset>
            <legend className="mb-1.5 text-sm font-medium text-ink-100">
              {t("phone.channel")}
            </legend>
            <div className="grid grid-cols-2 gap-2">
              {(["sms", "whatsapp"] as const).map((c) => (
                <label
                  key={c}
                  className="flex cursor-pointer items-center gap-2 rounded-xl border border-line px-3 py-2.5 text-ink-100 has-[:checked]:border-brand has-[:checked]:bg-brand/15 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand"
                >
                  <input
                    type="radio"
                    name="channel"
                    value={c}
                    defaultChecked={channel === c}
                    className="sr-only"
                  />
                  {c === "sms" ? (
                    <MessageSquare aria-hidden className="size-4" />
                  ) : (
                    <MessageCircle aria-hidden className="size-4" />
                  )}
                  {t(`phone.channel.${c}`)}
                </label>
              ))}
            </div>
          </fieldset>
          <SubmitButton label="phone.send" pendingLabel="phone.sending" className="w-full" />
        </Form>
      ) : (
        <>
          <Alert success>
            <p>{t("phone.sentTo", { phone: values.phone ?? "" })}</p>
          </Alert>
          <Form method="post" noValidate className="mt-5 space-y-5">
            <input type="hidden" name="redirectTo" value={redirectTo} />
            <input type="hidden" name="phone" value={values.phone} />
            <input type="hidden" name="channel" value={channel} />
            <Alert error={result?.error} />
            <Field
              label={t("phone.code")}
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              autoFocus
              hint={t("phone.codeHint")}
              defaultValue={values.code}
              error={fe.code && t(fe.code)}
              className="[&_input]:text-center [&_input]:font-mono [&_input]:text-2xl [&_input]:tracking-[0.5em]"
            />
            <Field
              label={t("phone.nickname")}
              name="nickname"
              autoComplete="nickname"
              maxLength={30}
              hint={t("phone.nicknameHint")}
              defaultValue={values.nickname}
            />
            <SubmitButton
              label="phone.verify"
              pendingLabel="phone.verifying"
              intent="verify"
              className="w-full"
            />
          </Form>
          <div className="mt-6 flex flex-wrap items-center justify-between gap-3 border-t border-line pt-5">
            <Form method="post">
              <input type="hidden" name="redirectTo" value={redirectTo} />
              <input type="hidden" name="phone" value={values.phone} />
              <input type="hidden" name="channel" value={channel} />
              <SubmitButton
                label="phone.resend"
                pendingLabel="phone.sending"
                intent="send"
                variant="ghost"
              />
            </Form>
            <Link
              to={withRedirectTo("/login/phone", redirectTo)}
              reloadDocument
              className={`${buttonClass.link} text-sm`}
            >
              {t("phone.otherNumber")}
            </Link>
          </div>
        </>
      )}
      <p className="mt-6 text-center text-ink-200">
        <Link to={withRedirectTo("/login", redirectTo)} className={buttonClass.link}>
          {t("phone.useEmail")}
        </Link>
      </p>
    </AuthLayout>
  );
}

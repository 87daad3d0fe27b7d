import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { PhoneLoginScreen } from "~/components/auth/PhoneLoginScreen";
import { pageMeta } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { displayError } from "~/lib/errors";
import { formString, type FormState } from "~/lib/forms";
import { redirectSignedIn, safeRedirect, startSession } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";

export const meta = pageMeta("phone.title");

export async function loader(args: LoaderFunctionArgs) {
  return redirectSignedIn(args);
}

/** Numbers as people type them: digits and the usual formatting, with a leading + or 00. */
const looksLikeNumber = (s: string) => /^(\+|00)[\d\s\-.()/]{6,38}$/.test(s);

/**
 * Phone sign-in (issue 15) in two steps on one page: "send" texts a code (POST
 * /mobile-auth/send-code), "verify" trades it for a session (POST /mobile-auth/verify-code,
 * which makes the account when the number is new) and sets the session cookie.
 */
export async function action(args: ActionFunctionArgs) {
  const form = await args.request.formData();
  const intent = formString(form, "intent") === "verify" ? "verify" : "send";
  const phone = formString(form, "phone").trim();
  const channel = formString(form, "channel") === "whatsapp" ? "whatsapp" : "sms";
  if (!looksLikeNumber(phone))
    return data<FormState>(
      {
        intent: "send",
        fieldErrors: { phone: "validation.phoneFormat" },
        values: { phone, channel },
      },
      { status: 400 },
    );

  if (intent === "send") {
    const res = await userApi<{ phoneNumber: string }>(args, "/mobile-auth/send-code", {
      method: "POST",
      json: { phone, channel },
    });
    if (!res.ok)
      return data<FormState>(
        { intent, error: res, values: { phone, channel } },
        { status: res.status },
      );
    return data<FormState>({ intent, ok: true, values: { phone: res.data.phoneNumber, channel } });
  }

  const code = formString(form, "code").replace(/\s+/g, "");
  const nickname = formString(form, "nickname").trim();
  const values = { phone, channel, code, nickname };
  if (!/^\d{6}$/.test(code))
    return data<FormState>(
      { intent, ok: true, fieldErrors: { code: "validation.phoneCode" }, values },
      { status: 400 },
    );
  const res = await userApi<AuthResult>(args, "/mobile-auth/verify-code", {
    method: "POST",
    json: { phone, code, ...(nickname ? { nickname } : {}) },
  });
  // A failed code keeps the second step open: the error shows above the code field.
  if (!res.ok)
    return data<FormState>({ intent, ok: true, error: res, values }, { status: res.status });
  const cookie = await startSession(args, res.data.token);
  if (!cookie)
    return data<FormState>(
      { intent, ok: true, error: displayError(503, null), values },
      { status: 503 },
    );
  return redirect(safeRedirect(form.get("redirectTo")), { headers: { "Set-Cookie": cookie } });
}

export default function PhoneLogin() {
  return <PhoneLoginScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

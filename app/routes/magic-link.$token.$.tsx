import { data, redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useActionData } from "@remix-run/react";
import { StatusPage } from "~/components/ErrorPage";
import { AuthLayout, SubmitButton, buttonClass } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { magicTarget } from "~/lib/redirects";
import { displayError } from "~/lib/errors";
import { startSession } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";

export const meta = pageMeta("magic.title");

/**
 * A sign-in link lands here. Opening it spends nothing: link previewers, chat unfurlers and
 * mail scanners fetch links with GET, and a GET that signed in would both burn the one-time
 * token and hand the scanner a session (issue 13). The person clicks "Sign me in", which
 * posts (same-origin only, workers/web-guard.ts); only that validates the token.
 */
export async function action(args: ActionFunctionArgs) {
  const token = args.params.token ?? "";
  const res = await userApi<AuthResult & { target?: string | null }>(
    args,
    "/auth/validate-magic-link",
    { method: "POST", json: { token } },
  );
  if (!res.ok)
    return data(
      { error: res },
      { status: res.status === 429 ? 429 : res.status >= 500 ? 500 : 401 },
    );
  const target = magicTarget(res.data.target ?? args.params["*"]);
  const cookie = await startSession(args, res.data.token);
  if (!cookie) return data({ error: displayError(503, null) }, { status: 503 });
  return redirect(target, { headers: { "Set-Cookie": cookie } });
}

export default function MagicLink() {
  const t = useT();
  const failed = useActionData<typeof action>();
  if (failed?.error)
    return (
      <StatusPage
        status={failed.error.status}
        title={t("magic.failedHeading")}
        body={
          <>
            <p role="alert">{failed.error.generic ? t("errors.generic") : failed.error.message}</p>
            <p className="mt-2 text-base text-ink-300">{t("magic.failedBody")}</p>
          </>
        }
      >
        <Link to="/login" className={buttonClass.primary}>
          {t("magic.login")}
        </Link>
      </StatusPage>
    );
  return (
    <AuthLayout title={t("magic.heading")} lede={t("magic.lede")}>
      <Form method="post" className="flex flex-col gap-3">
        <SubmitButton label="magic.signIn" pendingLabel="magic.signingIn" intent="sign-in" />
      </Form>
    </AuthLayout>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import { data, redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { StatusPage } from "~/components/ErrorPage";
import { buttonClass } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { magicTarget } from "~/lib/redirects";
import { setTokenCookie } from "~/lib/session.server";
import type { AuthResult } from "~/lib/types";

export const meta = pageMeta("magic.title");

/** Validates the one-time token, signs the user in and sends them on; or says why not. */
export async function loader(args: LoaderFunctionArgs) {
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
  return redirect(target, {
    headers: { "Set-Cookie": setTokenCookie(args.request, res.data.token) },
  });
}

export default function MagicLink() {
  const t = useT();
  const { error } = useLoaderData<typeof loader>();
  return (
    <StatusPage
      status={error.status}
      title={t("magic.failedHeading")}
      body={
        <>
          <p role="alert">{error.generic ? t("errors.generic") : error.message}</p>
          <p className="mt-2 text-base text-ink-300">{t("magic.failedBody")}</p>
        </>
      }
    >
      <Link to="/login" className={buttonClass.primary}>
        {t("magic.login")}
      </Link>
    </StatusPage>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

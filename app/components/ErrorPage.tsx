import { isRouteErrorResponse, Link, useLocation, useRouteError } from "@remix-run/react";
import { Ban, CircleOff, SearchX } from "lucide-react";
import type { ReactNode } from "react";
import { useT } from "~/i18n";
import { buttonClass } from "~/components/ui";

/** A friendly full-width message for 403, 404 and crashes. */
export function StatusPage({
  status,
  title,
  body,
  children,
}: {
  status?: number;
  title: string;
  body: ReactNode;
  children?: ReactNode;
}) {
  const t = useT();
  const Icon = status === 404 ? SearchX : status === 403 ? Ban : CircleOff;
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-16 text-center sm:py-24">
      <div className="grid size-20 place-items-center rounded-full bg-linear-to-br from-brand to-neon shadow-[0_0_60px_-10px] shadow-brand">
        <Icon aria-hidden className="size-9 text-white" />
      </div>
      {status && (
        <p className="mt-6 text-sm font-semibold uppercase tracking-widest text-brand-light">
          {t("errors.status", { status })}
        </p>
      )}
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-white sm:text-4xl">{title}</h1>
      <div className="mt-3 text-lg text-ink-200">{body}</div>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        {children ?? (
          <Link to="/" className={buttonClass.primary}>
            {t("errors.backHome")}
          </Link>
        )}
      </div>
    </div>
  );
}

/** The message a loader threw with (`throw data({ message }, { status })`), if any. */
function thrownMessage(data: unknown): string | null {
  if (
    data &&
    typeof data === "object" &&
    typeof (data as { message?: unknown }).message === "string"
  )
    return (data as { message: string }).message;
  return null;
}

/**
 * The error page inside the app shell (the header stays): routes re-export it as
 * `export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage"`.
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  const t = useT();
  const location = useLocation();
  if (isRouteErrorResponse(error)) {
    const message = thrownMessage(error.data);
    if (error.status === 404)
      return (
        <StatusPage
          status={404}
          title={t("errors.notFound.title")}
          body={message ?? t("errors.notFound.body")}
        />
      );
    if (error.status === 403)
      return (
        <StatusPage
          status={403}
          title={t("errors.forbidden.title")}
          body={message ?? t("errors.forbidden.body")}
        />
      );
    if (error.status < 500 && message)
      return (
        <StatusPage status={error.status} title={t("errors.unexpected.title")} body={message} />
      );
  } else {
    console.error(error);
  }
  return (
    <StatusPage
      status={isRouteErrorResponse(error) ? error.status : 500}
      title={t("errors.unexpected.title")}
      body={t("errors.unexpected.body")}
    >
      <a href={location.pathname + location.search} className={buttonClass.primary}>
        {t("errors.retry")}
      </a>
      <Link to="/" className={buttonClass.secondary}>
        {t("errors.backHome")}
      </Link>
    </StatusPage>
  );
}

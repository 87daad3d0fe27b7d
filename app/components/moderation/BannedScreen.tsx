import { Form } from "@remix-run/react";
import { Ban } from "lucide-react";
import { button } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import { platformRemoval } from "~/lib/moderation";

/**
 * What a banned person sees on every page (issue 15): the ban, its end and the moderator's
 * reason, from the API's 403 on their session. Sign out ends the dead session on this browser.
 */
export function BannedScreen({ message }: { message: string }) {
  const t = useT();
  const locale = useLocale();
  const parsed = platformRemoval(message);
  const ban = parsed?.kind === "platformBan" ? parsed : null;
  return (
    <div className="grid min-h-[70dvh] place-items-center px-4 py-10" data-testid="banned-page">
      <div className="w-full max-w-lg rounded-3xl border border-danger/40 bg-panel/80 p-8 text-center shadow-2xl shadow-black/40">
        <span className="mx-auto mb-4 grid size-14 place-items-center rounded-full bg-danger/15 text-danger">
          <Ban aria-hidden className="size-7" />
        </span>
        <h1 className="text-2xl font-extrabold text-white">{t("banned.title")}</h1>
        <p className="mt-3 text-ink-100" data-testid="banned-until">
          {!ban
            ? message
            : ban.until
              ? t("banned.until", { until: formatDateTime(ban.until, locale) })
              : t("banned.forever")}
        </p>
        {ban?.reason && (
          <>
            <p className="mt-5 text-sm text-ink-200">{t("banned.reason")}</p>
            <blockquote
              className="mt-2 break-words rounded-xl border-l-4 border-danger/70 bg-white/5 px-4 py-3 text-left text-lg font-semibold text-white"
              data-testid="banned-reason"
            >
              {ban.reason}
            </blockquote>
          </>
        )}
        <Form method="post" action="/logout" className="mt-7">
          <button type="submit" className={button("secondary")}>
            {t("banned.signOut")}
          </button>
        </Form>
      </div>
    </div>
  );
}

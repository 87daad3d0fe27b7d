import type { loader } from "~/routes/dev.outbox";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { Filter, Inbox, Mail, MessageCircle, MessageSquare, Smartphone } from "lucide-react";
import { Fragment } from "react";
import { buttonClass, Field, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";

const URL_RE = /(https?:\/\/[^\s<>"')\]]+)/g;

/** The message text with its links clickable (the text itself is unchanged). */
function Linkified({ text }: { text: string }) {
  const parts = text.split(URL_RE);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <a
            key={i}
            href={part}
            className="break-all text-brand-light underline underline-offset-2 hover:text-white"
          >
            {part}
          </a>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}

const ICONS = {
  email: Mail,
  sms: MessageSquare,
  whatsapp: MessageCircle,
  push: Smartphone,
} as const;

export function OutboxScreen() {
  const t = useT();
  const locale = useLocale();
  const { to, messages } = useLoaderData<typeof loader>();
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <PageTitle className="flex items-center gap-3">
        <Inbox aria-hidden className="size-8 text-brand-light" />
        {t("outbox.heading")}
      </PageTitle>
      <p className="mt-2 text-ink-200">{t("outbox.lede")}</p>

      <Form
        method="get"
        className="mt-6 flex flex-wrap items-end gap-3 rounded-2xl border border-line bg-panel/70 p-4"
      >
        <Field
          label={t("outbox.filter")}
          name="to"
          type="email"
          defaultValue={to}
          key={to}
          className="min-w-0 flex-1 basis-60"
        />
        <button type="submit" className={`${buttonClass.primary} h-[46px]`}>
          <Filter aria-hidden className="size-4" />
          {t("outbox.filterButton")}
        </button>
        {to && (
          <Link to="/dev/outbox" className={`${buttonClass.secondary} h-[46px]`}>
            {t("outbox.clear")}
          </Link>
        )}
      </Form>

      <p className="mt-6 text-sm text-ink-300">{t("outbox.count", { count: messages.length })}</p>
      {messages.length === 0 ? (
        <p className="mt-3 rounded-2xl border border-dashed border-line px-4 py-12 text-center text-ink-200">
          {t("outbox.empty")}
        </p>
      ) : (
        <ol className="mt-3 space-y-4">
          {messages.map((m) => {
            const Icon = ICONS[m.channel] ?? Mail;
            return (
              <li
                key={m.id}
                className="rounded-2xl border border-line bg-panel/70 p-5"
                data-testid="outbox-item"
                data-to={m.to}
              >
                <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1">
                  <h2 className="flex min-w-0 items-center gap-2 text-lg font-semibold text-white">
                    <Icon aria-hidden className="size-5 shrink-0 text-brand-light" />
                    <span className="sr-only">{t("outbox.subject")}: </span>
                    <span className="break-words" data-testid="outbox-subject">
                      {m.subject}
                    </span>
                  </h2>
                  <p className="text-sm text-ink-300">
                    <span className="sr-only">{t("outbox.sentAt")}: </span>
                    <time dateTime={new Date(m.createdAt).toISOString()}>
                      {formatDateTime(m.createdAt, locale)}
                    </time>
                  </p>
                </div>
                <p className="mt-1 text-sm text-ink-200">
                  {t("outbox.to")}:{" "}
                  <span className="font-medium text-ink-50" data-testid="outbox-to">
                    {m.to}
                  </span>
                </p>
                <pre
                  className="mt-4 whitespace-pre-wrap break-words rounded-xl bg-ink-950/70 p-4 font-mono text-sm leading-relaxed text-ink-100"
                  data-testid="outbox-message"
                >
                  <Linkified text={m.text} />
                </pre>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

import { Link } from "@remix-run/react";
import { ExternalLink } from "lucide-react";
import type { ReactNode } from "react";
import { Avatar } from "~/components/Avatar";
import { DetailRow } from "~/components/admin/DetailRow";
import { buttonClass, PageTitle } from "~/components/ui";
import { hasKey, useLocale, useT, type MessageKey } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import type {
  CursorPage,
  ModerationActionDto,
  ModerationComment,
  ModerationState,
} from "~/lib/moderation";
import { ModerationActions } from "./ModerationActions";
import { ModerationComments } from "./ModerationComments";
import { ModerationHistory } from "./ModerationHistory";

/** One account's moderation page (issue 15): state, actions, history and notes. */
export function ModerationScreen({
  state,
  history,
  comments,
  names,
  isAdmin,
}: {
  state: ModerationState;
  history: CursorPage<ModerationActionDto>;
  comments: CursorPage<ModerationComment>;
  names: Record<string, string>;
  isAdmin: boolean;
}) {
  const t = useT();
  const locale = useLocale();
  const { user } = state;
  const none = <span className="text-ink-300">{t("common.none")}</span>;
  const chips = (items: readonly string[], prefix: "role" | "badge" | null): ReactNode =>
    items.length ? (
      <span className="flex flex-wrap gap-1.5">
        {items.map((i) => (
          <span key={i} className="rounded-full bg-white/10 px-2.5 py-0.5 text-sm font-medium">
            {prefix && hasKey(`${prefix}.${i}`) ? t(`${prefix}.${i}` as MessageKey) : i}
          </span>
        ))}
      </span>
    ) : (
      none
    );

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <div className="flex flex-wrap items-center gap-4">
        <Avatar name={user.nickname} src={user.profilePicture} color={user.color} size={64} />
        <div className="min-w-0">
          <p className="text-sm text-ink-300">{t("mod.title")}</p>
          <PageTitle size="fixed" className="break-all">
            {user.nickname}
          </PageTitle>
        </div>
        <Link to={`/profile/${user.uuid}`} className={`${buttonClass.secondary} sm:ml-auto`}>
          <ExternalLink aria-hidden className="size-4" />
          {t("mod.viewProfile")}
        </Link>
      </div>

      <div className="mt-8 grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="grid content-start gap-6">
          <section
            aria-labelledby="mod-state"
            className="rounded-2xl border border-line bg-panel/70 px-5 pt-4"
          >
            <h2 id="mod-state" className="text-lg font-bold text-white">
              {t("mod.state")}
            </h2>
            <dl className="divide-y divide-line" data-testid="mod-state">
              <DetailRow label={t("mod.ban")}>
                {user.ban ? (
                  <span className="text-danger" data-testid="mod-ban-state">
                    {user.ban.until
                      ? t("mod.bannedUntil", { until: formatDateTime(user.ban.until, locale) })
                      : t("mod.bannedForever")}
                    {user.ban.reason && (
                      <span className="block break-words text-ink-100">
                        {t("mod.banReason", { reason: user.ban.reason })}
                      </span>
                    )}
                  </span>
                ) : (
                  <span data-testid="mod-ban-state">{t("mod.notBanned")}</span>
                )}
              </DetailRow>
              <DetailRow label={t("mod.deactivation")}>
                {user.deactivated
                  ? t("mod.deactivated")
                  : user.deactivationRequestedAt
                    ? t("mod.requested", {
                        date: formatDateTime(user.deactivationRequestedAt, locale),
                      })
                    : t("mod.active")}
              </DetailRow>
              <DetailRow label={t("mod.roles")}>{chips(user.roles, "role")}</DetailRow>
              <DetailRow label={t("mod.badges")}>{chips(user.badges, "badge")}</DetailRow>
              <DetailRow label={t("mod.capabilities")}>{chips(user.capabilities, null)}</DetailRow>
            </dl>
          </section>
          <ModerationActions state={state} isAdmin={isAdmin} />
        </div>
        <div className="grid content-start gap-6">
          <ModerationHistory uuid={user.uuid} first={history} names={names} />
          <ModerationComments
            uuid={user.uuid}
            first={comments}
            canWrite={state.refusal !== "self"}
          />
        </div>
      </div>
    </div>
  );
}

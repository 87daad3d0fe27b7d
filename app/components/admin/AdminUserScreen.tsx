import type { loader } from "~/routes/admin.users.$id";
import { Link, useLoaderData } from "@remix-run/react";
import { ArrowLeft, ExternalLink, ShieldAlert } from "lucide-react";
import { AdminUserTokens } from "~/components/admin/AdminUserTokens";
import { DetailRow } from "~/components/admin/DetailRow";
import { Avatar } from "~/components/Avatar";
import { buttonClass, PageTitle } from "~/components/ui";
import { hasKey, useLocale, useT } from "~/i18n";
import { formatDateTime, fullName, userColor } from "~/lib/format";

/** One user's record for admins: every field of the user, read-only, and their tokens. */
export function AdminUserScreen() {
  const t = useT();
  const locale = useLocale();
  const { user, tokens } = useLoaderData<typeof loader>();
  const none = <span className="text-ink-300">{t("common.none")}</span>;
  const list = (items: string[] | undefined, prefix: "role" | "badge" | null) =>
    items?.length ? (
      <span className="flex flex-wrap gap-1.5">
        {items.map((i) => (
          <span key={i} className="rounded-full bg-white/10 px-2.5 py-0.5 text-sm font-medium">
            {prefix && hasKey(`${prefix}.${i}`) ? t(`${prefix}.${i}` as "role.user") : i}
          </span>
        ))}
      </span>
    ) : (
      none
    );

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/admin/users" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("admin.back")}
      </Link>
      <div className="mt-4 flex flex-wrap items-center gap-4">
        <Avatar name={user.nickname} src={user.profilePicture} color={user.color} size={72} />
        <div className="min-w-0">
          <p className="text-sm text-ink-300">{t("admin.detailTitle", { id: user.id })}</p>
          <PageTitle size="fixed" className="break-all">
            {user.nickname}
          </PageTitle>
        </div>
        <div className="flex flex-wrap gap-2 sm:ml-auto">
          <Link to={`/moderation/${user.uuid}`} className={buttonClass.secondary}>
            <ShieldAlert aria-hidden className="size-4" />
            {t("mod.open")}
          </Link>
          <Link to={`/profile/${user.uuid}`} className={buttonClass.secondary}>
            <ExternalLink aria-hidden className="size-4" />
            {t("admin.viewProfile")}
          </Link>
        </div>
      </div>

      <dl className="mt-8 divide-y divide-line rounded-2xl border border-line bg-panel/70 px-5">
        <DetailRow label={t("admin.field.id")}>{user.id}</DetailRow>
        <DetailRow label={t("admin.field.uuid")}>
          <code className="font-mono text-sm">{user.uuid}</code>
        </DetailRow>
        <DetailRow label={t("field.email")}>{user.email ?? none}</DetailRow>
        <DetailRow label={t("admin.field.emailVerified")}>
          {user.emailVerified ? t("common.yes") : t("common.no")}
        </DetailRow>
        <DetailRow label={t("profile.name")}>{fullName(user) || none}</DetailRow>
        <DetailRow label={t("field.color")}>
          <span className="inline-flex items-center gap-2">
            <span
              aria-hidden
              className="size-4 rounded-full ring-2 ring-white/20"
              style={{ backgroundColor: userColor(user.color) }}
            />
            <code className="font-mono text-sm">{userColor(user.color)}</code>
          </span>
        </DetailRow>
        <DetailRow label={t("field.pronoun")}>{user.pronoun || none}</DetailRow>
        <DetailRow label={t("field.zodiac")}>{user.zodiac || none}</DetailRow>
        <DetailRow label={t("profile.roles")}>{list(user.roles, "role")}</DetailRow>
        <DetailRow label={t("admin.field.capabilities")}>{list(user.capabilities, null)}</DetailRow>
        <DetailRow label={t("profile.badges")}>{list(user.badges, "badge")}</DetailRow>
        <DetailRow label={t("admin.field.created")}>
          {formatDateTime(user.createdAt, locale) || none}
        </DetailRow>
        <DetailRow label={t("field.bio")}>
          {user.bio ? <span className="whitespace-pre-line">{user.bio}</span> : none}
        </DetailRow>
      </dl>
      {tokens && <AdminUserTokens tokens={tokens} />}
    </div>
  );
}

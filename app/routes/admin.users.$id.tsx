import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { ArrowLeft, ExternalLink } from "lucide-react";
import type { ReactNode } from "react";
import { Avatar } from "~/components/Avatar";
import { buttonClass, PageTitle } from "~/components/ui";
import { hasKey, pageMeta, useLocale, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { userApi } from "~/lib/api.server";
import { formatDateTime, fullName, userColor } from "~/lib/format";
import type { User } from "~/lib/types";

export const meta = pageMeta("admin.title");

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const res = await userApi<User>(
    args,
    `/admin/users/${encodeURIComponent(args.params.id ?? "")}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { user: res.data };
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 sm:grid-cols-[12rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-ink-300">{label}</dt>
      <dd className="break-words text-ink-50">{children}</dd>
    </div>
  );
}

export default function AdminUser() {
  const t = useT();
  const locale = useLocale();
  const { user } = useLoaderData<typeof loader>();
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
        <Link to={`/profile/${user.uuid}`} className={`${buttonClass.secondary} sm:ml-auto`}>
          <ExternalLink aria-hidden className="size-4" />
          {t("admin.viewProfile")}
        </Link>
      </div>

      <dl className="mt-8 divide-y divide-line rounded-2xl border border-line bg-panel/70 px-5">
        <Row label={t("admin.field.id")}>{user.id}</Row>
        <Row label={t("admin.field.uuid")}>
          <code className="font-mono text-sm">{user.uuid}</code>
        </Row>
        <Row label={t("field.email")}>{user.email ?? none}</Row>
        <Row label={t("admin.field.emailVerified")}>
          {user.emailVerified ? t("common.yes") : t("common.no")}
        </Row>
        <Row label={t("profile.name")}>{fullName(user) || none}</Row>
        <Row label={t("field.color")}>
          <span className="inline-flex items-center gap-2">
            <span
              aria-hidden
              className="size-4 rounded-full ring-2 ring-white/20"
              style={{ backgroundColor: userColor(user.color) }}
            />
            <code className="font-mono text-sm">{userColor(user.color)}</code>
          </span>
        </Row>
        <Row label={t("field.pronoun")}>{user.pronoun || none}</Row>
        <Row label={t("field.zodiac")}>{user.zodiac || none}</Row>
        <Row label={t("profile.roles")}>{list(user.roles, "role")}</Row>
        <Row label={t("admin.field.capabilities")}>{list(user.capabilities, null)}</Row>
        <Row label={t("profile.badges")}>{list(user.badges, "badge")}</Row>
        <Row label={t("admin.field.created")}>{formatDateTime(user.createdAt, locale) || none}</Row>
        <Row label={t("field.bio")}>
          {user.bio ? <span className="whitespace-pre-line">{user.bio}</span> : none}
        </Row>
      </dl>
    </div>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

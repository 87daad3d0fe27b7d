import { Link } from "@remix-run/react";
import { BadgeCheck, CalendarDays, Mail, Sparkles, UserRound } from "lucide-react";
import type { ReactNode } from "react";
import { useImageFallback } from "~/hooks/useImageFallback";
import { hasKey, useLocale, useT } from "~/i18n";
import { formatDate, fullName, textOn, userColor } from "~/lib/format";
import type { PublicProfile, User } from "~/lib/types";
import { Avatar } from "~/components/Avatar";
import { AvatarArt } from "~/components/avatars/AvatarArt";
import { buttonClass } from "~/components/ui";
import { PageTitle } from "~/components/ui";

/** The cover: the uploaded picture, or a wash of the user's colour when there is none (or it fails). */
export function Cover({
  src,
  color,
  alt,
  className = "h-40 sm:h-64",
}: {
  src?: string | null;
  color?: string | null;
  alt: string;
  className?: string;
}) {
  const { ref, failed, onError } = useImageFallback(src);
  const c = userColor(color);
  return (
    <div
      className={`relative overflow-hidden rounded-3xl border border-line ${className}`}
      style={{
        background: `radial-gradient(ellipse 80% 120% at 20% 0%, ${c}cc, transparent 70%), radial-gradient(ellipse 60% 100% at 100% 100%, #FF4FA366, transparent 70%), #15121F`,
      }}
    >
      {src && !failed && (
        <img
          ref={ref}
          src={src}
          alt={alt}
          className="absolute inset-0 size-full object-cover"
          onError={onError}
        />
      )}
      <div className="absolute inset-x-0 bottom-0 h-1/2 bg-linear-to-t from-ink-950/70 to-transparent" />
    </div>
  );
}

function Chip({ children, color }: { children: ReactNode; color?: string }) {
  return (
    <span
      className="inline-flex items-center gap-1 rounded-full border border-white/15 bg-white/10 px-2.5 py-0.5 text-sm font-medium text-ink-50"
      style={
        color
          ? { backgroundColor: color, color: textOn(color), borderColor: "transparent" }
          : undefined
      }
    >
      {children}
    </span>
  );
}

function Detail({
  icon,
  label,
  children,
}: {
  icon: ReactNode;
  label: string;
  children: ReactNode;
}) {
  return (
    <div className="flex items-start gap-3 py-3">
      <span className="mt-0.5 text-brand-light">{icon}</span>
      <div className="min-w-0">
        <dt className="text-sm text-ink-300">{label}</dt>
        <dd className="break-words text-ink-50">{children}</dd>
      </div>
    </div>
  );
}

/**
 * One profile page, for the owner (`own` adds e-mail, verification and roles) and for
 * everyone else. `actions` sits beside the name (Edit profile, say).
 */
export function ProfileView({
  profile,
  own,
  actions,
}: {
  profile: PublicProfile | User;
  own?: boolean;
  actions?: ReactNode;
}) {
  const t = useT();
  const locale = useLocale();
  const name = fullName(profile);
  const showPronouns = !!profile.pronoun && (own || profile.displayPronouns);
  const zodiac = profile.zodiac
    ? hasKey(`zodiac.${profile.zodiac.toLowerCase()}`)
      ? t(`zodiac.${profile.zodiac.toLowerCase()}` as "zodiac.leo")
      : profile.zodiac
    : null;
  const user = own ? (profile as User) : null;
  const since = formatDate(profile.createdAt, locale);
  const color = userColor(profile.color);

  return (
    <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 sm:py-10">
      <Cover src={profile.coverPicture} color={profile.color} alt={t("profile.coverAlt")} />
      <div className="relative flex flex-col gap-4 px-2 sm:flex-row sm:items-start sm:gap-6 sm:px-6">
        <Avatar
          name={profile.nickname}
          src={profile.profilePicture}
          color={profile.color}
          size={120}
          alt={t("profile.pictureAlt", { name: profile.nickname })}
          className="-mt-16 ring-4! ring-ink-950! sm:-mt-20"
        />
        <div className="min-w-0 flex-1 sm:pt-4">
          <PageTitle className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="break-all" data-testid="profile-nickname">
              {profile.nickname}
            </span>
            <span
              aria-hidden
              className="size-3.5 rounded-full ring-2 ring-white/30"
              style={{ backgroundColor: color }}
            />
          </PageTitle>
          <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-ink-200">
            {name && <span className="text-lg">{name}</span>}
            {showPronouns && <span className="text-ink-300">({profile.pronoun})</span>}
          </p>
          {/* The avatar they wear in rooms (issue 6); one's own links to the picker. */}
          {(profile.avatarId || own) && (
            <p className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-1">
              {profile.avatarId && (
                <span data-testid="profile-avatar" data-avatar-id={profile.avatarId}>
                  <AvatarArt
                    slug={profile.avatarId}
                    size={48}
                    alt={t("avatars.artAlt", { name: profile.avatarId })}
                  />
                </span>
              )}
              {own && (
                <>
                  <Link
                    to="/avatars"
                    className={buttonClass.link}
                    data-testid="profile-change-avatar"
                  >
                    {t("avatars.change")}
                  </Link>
                  <Link
                    to="/subscription"
                    className={buttonClass.link}
                    data-testid="profile-subscription"
                  >
                    {t("subscription.title")}
                  </Link>
                  <Link to="/shop" className={buttonClass.link} data-testid="profile-shop">
                    {t("shop.title")}
                  </Link>
                  <Link to="/friends" className={buttonClass.link} data-testid="profile-friends">
                    {t("nav.friends")}
                  </Link>
                  <Link
                    to="/settings/notifications"
                    className={buttonClass.link}
                    data-testid="profile-notification-settings"
                  >
                    {t("notif.settingsShort")}
                  </Link>
                  <Link
                    to="/settings/connections"
                    className={buttonClass.link}
                    data-testid="profile-connections"
                  >
                    {t("linked.short")}
                  </Link>
                </>
              )}
            </p>
          )}
          {!!profile.badges?.length && (
            <ul aria-label={t("profile.badges")} className="mt-3 flex flex-wrap gap-2">
              {profile.badges.map((b) => (
                <li key={b}>
                  <Chip>
                    <BadgeCheck aria-hidden className="size-4 text-brand-light" />
                    {hasKey(`badge.${b}`) ? t(`badge.${b}` as "badge.STAFF") : b}
                  </Chip>
                </li>
              ))}
            </ul>
          )}
        </div>
        {actions && <div className="flex flex-wrap gap-2 sm:pt-4">{actions}</div>}
      </div>

      <div className="mt-8 grid gap-5 lg:grid-cols-[1.4fr_1fr]">
        <section aria-labelledby="about" className="rounded-3xl border border-line bg-panel/70 p-6">
          <h2 id="about" className="text-lg font-bold text-white">
            {t("profile.about")}
          </h2>
          <p className="mt-3 whitespace-pre-line text-ink-100">
            {profile.bio?.trim() || <span className="text-ink-300">{t("profile.noBio")}</span>}
          </p>
        </section>
        <section
          aria-labelledby="details"
          className="rounded-3xl border border-line bg-panel/70 p-6"
        >
          <h2 id="details" className="text-lg font-bold text-white">
            {t("profile.details")}
          </h2>
          <dl className="mt-1 divide-y divide-line">
            {user && (
              <Detail icon={<Mail aria-hidden className="size-5" />} label={t("profile.email")}>
                <span className="block [overflow-wrap:anywhere]">{user.email}</span>
                {user.emailVerified ? (
                  <span className="mt-1.5 flex">
                    <Chip color="#3DDC97">{t("profile.verified")}</Chip>
                  </span>
                ) : (
                  <span className="mt-1.5 flex flex-wrap items-center gap-2">
                    <Chip>{t("profile.unverified")}</Chip>
                    <Link
                      to="/verify-email"
                      className="text-sm font-medium text-brand-light underline underline-offset-4"
                    >
                      {t("profile.verifyNow")}
                    </Link>
                  </span>
                )}
              </Detail>
            )}
            {showPronouns && (
              <Detail
                icon={<UserRound aria-hidden className="size-5" />}
                label={t("profile.pronouns")}
              >
                {profile.pronoun}
              </Detail>
            )}
            {zodiac && (
              <Detail
                icon={<Sparkles aria-hidden className="size-5" />}
                label={t("profile.zodiac")}
              >
                {zodiac}
              </Detail>
            )}
            {since && (
              <Detail
                icon={<CalendarDays aria-hidden className="size-5" />}
                label={t("profile.since")}
              >
                {since}
              </Detail>
            )}
            {user && !!user.roles?.length && (
              <Detail
                icon={<BadgeCheck aria-hidden className="size-5" />}
                label={t("profile.roles")}
              >
                <span className="flex flex-wrap gap-1.5">
                  {user.roles.map((r) => (
                    <Chip key={r}>{hasKey(`role.${r}`) ? t(`role.${r}` as "role.user") : r}</Chip>
                  ))}
                </span>
              </Detail>
            )}
          </dl>
        </section>
      </div>
    </div>
  );
}

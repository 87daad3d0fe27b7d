import type { loader, action } from "~/routes/avatars";
import { Link, useFetcher, useLoaderData } from "@remix-run/react";
import { ArrowLeft, Check, Loader2, Lock } from "lucide-react";
import { AvatarArt } from "~/components/avatars/AvatarArt";
import { Alert, button, PageTitle } from "~/components/ui";
import { useT, type T } from "~/i18n";
import type { Unlock } from "~/lib/avatars";

/** The words for how a locked avatar is unlocked. */
export function unlockText(t: T, unlock: Unlock | null): string {
  if (!unlock) return "";
  if (unlock.kind === "SEASON_POINTS")
    return t("avatars.unlock.SEASON_POINTS", {
      points: unlock.points ?? "?",
      season: unlock.seasonName ?? t("avatars.unlock.theSeason"),
    });
  return t(`avatars.unlock.${unlock.kind}`);
}

export function AvatarPickerScreen() {
  const t = useT();
  const { avatars, current } = useLoaderData<typeof loader>();
  const fetcher = useFetcher<typeof action>();
  // Optimistic: the pick shows at once and rolls back if the server refuses it.
  const pending = fetcher.formData ? formStringOf(fetcher.formData) || null : undefined;
  const refused =
    fetcher.state === "idle" && fetcher.data && !fetcher.data.ok ? fetcher.data : null;
  const worn = pending !== undefined ? pending : current;
  const unlocked = avatars.filter((a) => !a.locked);
  const locked = avatars.filter((a) => a.locked);
  const wornAvatar = avatars.find((a) => a.slug === worn);
  const done = fetcher.state === "idle" && fetcher.data?.ok ? fetcher.data : null;

  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/profile" className={button("ghost", "sm")}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("avatars.backToProfile")}
      </Link>
      <header className="mt-4 flex flex-col gap-6 rounded-3xl border border-line bg-panel/70 p-6 sm:flex-row sm:items-center sm:p-8">
        <div className="relative self-center">
          {wornAvatar ? (
            <AvatarArt
              slug={wornAvatar.slug}
              src={wornAvatar.thumbnails["256"]}
              size={112}
              alt={t("avatars.artAlt", { name: wornAvatar.name })}
            />
          ) : (
            <div className="grid size-28 place-items-center rounded-full border-2 border-dashed border-white/20 text-ink-300">
              ?
            </div>
          )}
          {fetcher.state !== "idle" && (
            <Loader2
              aria-hidden
              className="absolute -right-1 -top-1 size-6 animate-spin text-brand-light"
            />
          )}
        </div>
        <div className="min-w-0 flex-1">
          <PageTitle>{t("avatars.heading")}</PageTitle>
          <p className="mt-2 text-ink-200">{t("avatars.lede")}</p>
          <p className="mt-3 font-semibold text-white" data-testid="avatar-current">
            {wornAvatar ? `${t("avatars.wearingNow")}: ${wornAvatar.name}` : t("avatars.noneWorn")}
          </p>
        </div>
        {worn && (
          <fetcher.Form method="post">
            <input type="hidden" name="avatarId" value="" />
            <button
              type="submit"
              className={button("secondary", "sm")}
              data-testid="avatar-take-off"
            >
              {t("avatars.takeOff")}
            </button>
          </fetcher.Form>
        )}
      </header>

      <div className="mt-4 min-h-6" aria-live="polite" data-testid="avatar-result">
        {refused && <Alert error={refused.error} />}
        {done && (
          <Alert success>
            {done.avatarId
              ? t("avatars.worn", {
                  name: avatars.find((a) => a.slug === done.avatarId)?.name ?? done.avatarId,
                })
              : t("avatars.cleared")}
          </Alert>
        )}
      </div>

      <section aria-labelledby="unlocked-heading" className="mt-6">
        <h2 id="unlocked-heading" className="text-xl font-bold text-white">
          {t("avatars.unlockedHeading", { count: unlocked.length })}
        </h2>
        {unlocked.length === 0 ? (
          <p className="mt-3 text-ink-200">{t("avatars.empty")}</p>
        ) : (
          <ul className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
            {unlocked.map((a) => {
              const isWorn = a.slug === worn;
              return (
                <li key={a.slug}>
                  <fetcher.Form method="post">
                    <input type="hidden" name="avatarId" value={a.slug} />
                    <button
                      type="submit"
                      aria-pressed={isWorn}
                      aria-label={
                        isWorn
                          ? `${a.name}: ${t("avatars.wearingNow")}`
                          : t("avatars.wearName", { name: a.name })
                      }
                      data-testid={`avatar-option-${a.slug}`}
                      className={`group relative flex w-full flex-col items-center gap-2 rounded-2xl border p-4 text-center transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-light ${
                        isWorn
                          ? "border-brand-light bg-brand/20 ring-2 ring-brand-light"
                          : "border-line bg-panel/70 hover:border-white/40 hover:bg-white/5"
                      }`}
                    >
                      <AvatarArt slug={a.slug} src={a.thumbnails["256"]} size={88} />
                      <span className="w-full truncate font-semibold text-white">{a.name}</span>
                      <span
                        className={`text-xs font-medium ${isWorn ? "text-brand-light" : "text-ink-300 group-hover:text-ink-100"}`}
                      >
                        {isWorn ? t("avatars.wearingNow") : t("avatars.wear")}
                      </span>
                      {isWorn && (
                        <span className="absolute right-2 top-2 grid size-6 place-items-center rounded-full bg-brand-light text-ink-950">
                          <Check aria-hidden className="size-4" />
                        </span>
                      )}
                    </button>
                  </fetcher.Form>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      <section aria-labelledby="locked-heading" className="mt-10">
        <h2 id="locked-heading" className="text-xl font-bold text-white">
          {t("avatars.lockedHeading", { count: locked.length })}
        </h2>
        {locked.length === 0 ? (
          <p className="mt-3 text-ink-200">{t("avatars.lockedEmpty")}</p>
        ) : (
          <ul className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
            {locked.map((a) => (
              <li
                key={a.slug}
                data-testid={`avatar-locked-${a.slug}`}
                aria-label={`${a.name}: ${t("avatars.lockedLabel", { how: unlockText(t, a.unlock) })}`}
                className="relative flex flex-col items-center gap-2 rounded-2xl border border-dashed border-line bg-black/20 p-4 text-center"
              >
                <span className="opacity-50 grayscale">
                  <AvatarArt slug={a.slug} src={a.thumbnails["256"]} size={88} />
                </span>
                <span className="absolute left-1/2 top-[4.2rem] grid size-8 -translate-x-1/2 place-items-center rounded-full bg-ink-950/90 ring-1 ring-white/20">
                  <Lock aria-hidden className="size-4 text-ink-100" />
                </span>
                <span className="w-full truncate font-semibold text-ink-100">{a.name}</span>
                <span className="text-xs text-ink-200">{unlockText(t, a.unlock)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function formStringOf(form: FormData) {
  const v = form.get("avatarId");
  return typeof v === "string" ? v : "";
}

import { Link, useLoaderData } from "@remix-run/react";
import type { loader } from "~/routes/_index";
import { LiveHome, type LiveRooms } from "./LiveHome";
import {
  Armchair,
  AudioLines,
  MessageCircleHeart,
  Star,
  ThumbsDown,
  ThumbsUp,
  Trophy,
} from "lucide-react";
import { Avatar } from "~/components/Avatar";
import { button } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import { useRootData } from "~/hooks/useRootData";

const FEATURES: { icon: typeof Armchair; title: MessageKey; body: MessageKey }[] = [
  { icon: Armchair, title: "home.feature1.title", body: "home.feature1.body" },
  { icon: AudioLines, title: "home.feature2.title", body: "home.feature2.body" },
  { icon: MessageCircleHeart, title: "home.feature3.title", body: "home.feature3.body" },
  { icon: Trophy, title: "home.feature4.title", body: "home.feature4.body" },
];

// The decorative room on the landing page: who sits on stage and who dances on the floor.
const DJS: { name: MessageKey; color: string }[] = [
  { name: "home.stage.dj1", color: "FF4FA3" },
  { name: "home.stage.dj2", color: "3EE0FF" },
];
// Initials only (the floor shows no names).
const FLOOR = "ABCDEFGHIJKLMN".split("");
const FLOOR_COLORS = ["562DF9", "FF4FA3", "3EE0FF", "FFB020", "3DDC97", "B3A0FF"];

export function HomeScreen() {
  const t = useT();
  const user = useRootData()?.user;
  const live = useLoaderData<typeof loader>()?.live;
  // Signed in: the live rooms, not the marketing mock-up (issue 20).
  if (user && live) return <LiveHome name={user.nickname} live={live as LiveRooms} />;
  return (
    <>
      <section className="mx-auto grid max-w-6xl items-center gap-12 px-4 pb-12 pt-10 sm:px-6 lg:grid-cols-[1.05fr_1fr] lg:pb-20 lg:pt-20">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full border border-neon/40 bg-neon/10 px-3 py-1 text-sm font-semibold text-ink-50">
            <span className="relative flex size-2">
              <span className="absolute inline-flex size-full animate-ping rounded-full bg-neon opacity-75" />
              <span className="relative inline-flex size-2 rounded-full bg-neon" />
            </span>
            {t("home.eyebrow")}
          </p>
          <h1 className="mt-5 text-4xl font-extrabold leading-[1.05] tracking-tight text-balance text-white sm:text-6xl">
            {t("home.headline")}
          </h1>
          {user && (
            <p className="mt-4 text-xl font-semibold text-brand-light">
              {t("home.welcomeBack", { name: user.nickname })}
            </p>
          )}
          <p className="mt-5 max-w-xl text-lg leading-relaxed text-ink-200">{t("home.lede")}</p>
          <div className="mt-8 flex flex-wrap gap-3">
            {user ? (
              <Link to="/rooms" className={button("primary", "lg")}>
                {t("homeLive.ctaRooms")}
              </Link>
            ) : (
              <>
                <Link to="/signup" className={button("primary", "lg")}>
                  {t("home.ctaSignup")}
                </Link>
                <Link to="/login" className={button("secondary", "lg")}>
                  {t("home.ctaLogin")}
                </Link>
              </>
            )}
          </div>
        </div>

        <StagePreview />
      </section>

      <section aria-labelledby="features" className="mx-auto max-w-6xl px-4 pb-20 sm:px-6">
        <h2 id="features" className="text-2xl font-bold tracking-tight text-white sm:text-3xl">
          {t("home.featuresHeading")}
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {FEATURES.map(({ icon: Icon, title, body }) => (
            <li key={title} className="rounded-2xl border border-line bg-panel/70 p-5">
              <span className="grid size-11 place-items-center rounded-xl bg-brand/20 text-brand-light">
                <Icon aria-hidden className="size-5" />
              </span>
              <h3 className="mt-4 text-lg font-semibold text-white">{t(title)}</h3>
              <p className="mt-1.5 text-ink-200">{t(body)}</p>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

/** A little room: the stage, the track playing, the vote buttons and the floor. Decorative. */
function StagePreview() {
  const t = useT();
  return (
    <div
      aria-hidden
      className="relative overflow-hidden rounded-[2rem] border border-line bg-linear-to-b from-[#1d1440] via-panel to-ink-950 p-5 shadow-2xl shadow-brand/20 sm:p-7"
    >
      <div className="pointer-events-none absolute -top-24 left-1/2 h-56 w-[130%] -translate-x-1/2 rounded-[100%] bg-brand/40 blur-3xl" />
      <div className="relative flex items-end justify-center gap-4 sm:gap-6">
        {DJS.map((dj, i) => (
          <div key={dj.name} className="flex flex-col items-center gap-2">
            <div
              className={`rounded-full p-1 ${i === 0 ? "bg-linear-to-br from-neon to-brand shadow-[0_0_30px] shadow-neon/60" : ""}`}
            >
              <Avatar name={t(dj.name)} color={dj.color} size={i === 0 ? 64 : 52} />
            </div>
            <span className="text-sm font-semibold text-white">{t(dj.name)}</span>
          </div>
        ))}
        <div className="flex flex-col items-center gap-2">
          <div className="grid size-[52px] place-items-center rounded-full border-2 border-dashed border-white/30 text-white/70">
            <Armchair className="size-5" />
          </div>
          <span className="text-sm font-medium text-ink-200">{t("home.stage.seat")}</span>
        </div>
      </div>

      <div className="relative mt-6 rounded-2xl border border-white/10 bg-black/30 p-4 backdrop-blur">
        <div className="flex items-center gap-4">
          <div className="grid size-14 shrink-0 place-items-center rounded-xl bg-linear-to-br from-brand via-neon to-cyan">
            <div className="flex h-6 items-end gap-0.5">
              {[0, 0.2, 0.45, 0.1, 0.3].map((d) => (
                <span
                  key={d}
                  className="eq-bar block h-full w-1 rounded-full bg-white"
                  style={{ animationDelay: `${d}s` }}
                />
              ))}
            </div>
          </div>
          <div className="min-w-0">
            <p className="text-xs font-semibold uppercase tracking-widest text-neon">
              {t("home.stage.nowPlaying")}
            </p>
            <p className="truncate font-semibold text-white">{t("home.stage.track")}</p>
            <p className="truncate text-sm text-ink-200">{t("home.stage.artist")}</p>
          </div>
        </div>
        <div className="mt-4 h-1.5 overflow-hidden rounded-full bg-white/10">
          <div className="h-full w-3/5 rounded-full bg-linear-to-r from-brand to-neon" />
        </div>
        <div className="mt-4 grid grid-cols-3 gap-2">
          {[ThumbsUp, ThumbsDown, Star].map((Icon, i) => (
            <div
              key={i}
              className={`grid h-11 place-items-center rounded-xl border ${i === 0 ? "border-success/60 bg-success/15 text-success" : i === 2 ? "border-[#FFB020]/50 bg-[#FFB020]/10 text-[#FFB020]" : "border-white/15 bg-white/5 text-ink-200"}`}
            >
              <Icon className="size-5" />
            </div>
          ))}
        </div>
      </div>

      <p className="relative mt-6 text-xs font-semibold uppercase tracking-widest text-ink-300">
        {t("home.stage.floor")}
      </p>
      <div className="relative mt-3 grid w-fit grid-cols-7 gap-2">
        {FLOOR.map((n, i) => (
          <Avatar key={n} name={n} color={FLOOR_COLORS[i % FLOOR_COLORS.length]} size={34} />
        ))}
      </div>
    </div>
  );
}

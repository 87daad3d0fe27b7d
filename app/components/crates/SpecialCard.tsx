import { Await, Link } from "@remix-run/react";
import { Suspense, type ReactNode } from "react";
import { plural, useT } from "~/i18n";
import { type CrateDto } from "~/lib/songs";
import { type Loaded } from "~/lib/songs.server";

export function SpecialCard({
  to,
  icon,
  title,
  data,
  testId,
}: {
  to: string;
  icon: ReactNode;
  title: string;
  data: Promise<Loaded<CrateDto>>;
  testId: string;
}) {
  const t = useT();
  return (
    <Link
      to={to}
      prefetch="intent"
      data-testid={testId}
      className="group flex items-center gap-4 rounded-2xl border border-line bg-linear-to-br from-brand/25 via-panel/80 to-neon/10 p-4 transition hover:border-white/30"
    >
      <span className="grid size-12 place-items-center rounded-xl bg-white/10 text-white ring-1 ring-white/15">
        {icon}
      </span>
      <span className="min-w-0">
        <span className="block font-bold text-white group-hover:underline">{title}</span>
        <span className="block text-sm text-ink-300">
          <Suspense
            fallback={
              <span className="inline-block h-3 w-16 animate-pulse rounded bg-white/10 align-middle" />
            }
          >
            <Await resolve={data}>
              {(res) => (res.ok ? plural(t, "crate.songCount", res.data.crateSongsNumber) : "–")}
            </Await>
          </Suspense>
        </span>
      </span>
    </Link>
  );
}

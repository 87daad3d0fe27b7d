import type { loader } from "~/routes/crates._index";
import { Await, useLoaderData, useRevalidator } from "@remix-run/react";
import { Heart, ListMusic } from "lucide-react";
import { Suspense } from "react";
import { LoadError, PageTitle } from "~/components/ui";
import { useT } from "~/i18n";
import { isSpecialCrate } from "~/lib/songs";
import { SpecialCard } from "./SpecialCard";
import { CratesSkeleton } from "./CratesSkeleton";
import { CrateList } from "./CrateList";

export function CratesScreen() {
  const t = useT();
  const { crates, queue, likes } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <PageTitle>{t("crates.heading")}</PageTitle>
      <p className="mt-2 text-ink-200">{t("crates.lede")}</p>

      <div className="mt-6 grid gap-3 sm:grid-cols-2">
        <SpecialCard
          to="/queue"
          icon={<ListMusic aria-hidden className="size-6" />}
          title={t("queue.heading")}
          data={queue}
          testId="card-queue"
        />
        <SpecialCard
          to="/likes"
          icon={<Heart aria-hidden className="size-6" />}
          title={t("likes.heading")}
          data={likes}
          testId="card-likes"
        />
      </div>

      <Suspense fallback={<CratesSkeleton />}>
        <Await resolve={crates}>
          {(res) =>
            res.ok ? (
              <CrateList initial={res.data.data.filter((c) => !isSpecialCrate(c))} />
            ) : (
              <LoadError error={res} onRetry={() => revalidator.revalidate()} className="mt-8" />
            )
          }
        </Await>
      </Suspense>
    </div>
  );
}

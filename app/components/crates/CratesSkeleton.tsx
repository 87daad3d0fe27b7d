import { useT } from "~/i18n";

export function CratesSkeleton() {
  const t = useT();
  return (
    <div role="status" className="mt-8" data-testid="skeleton">
      <span className="sr-only">{t("common.loading")}</span>
      <div aria-hidden className="mb-4 h-11 w-full animate-pulse rounded-2xl bg-white/[0.06]" />
      <ul aria-hidden className="space-y-2">
        {[0, 1, 2].map((i) => (
          <li key={i} className="flex items-center gap-4 rounded-2xl border border-line/60 p-3">
            <div className="size-14 animate-pulse rounded-xl bg-white/10" />
            <div className="flex-1 space-y-2">
              <div className="h-4 w-1/3 animate-pulse rounded bg-white/10" />
              <div className="h-3 w-20 animate-pulse rounded bg-white/[0.07]" />
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

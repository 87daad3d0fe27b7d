import { FlaskConical } from "lucide-react";
import type { ReactNode } from "react";
import { useT } from "~/i18n";

/**
 * The lede of the local test-mode payment pages (checkout and portal): a "test mode" badge
 * above the text, so nobody mistakes them for a real payment.
 */
export function TestModeLede({ children }: { children: ReactNode }) {
  const t = useT();
  return (
    <span className="flex flex-col gap-3">
      <span className="inline-flex w-fit items-center gap-1.5 rounded-full bg-amber-300/15 px-3 py-1 text-xs font-bold uppercase tracking-wider text-amber-200">
        <FlaskConical aria-hidden className="size-3.5" />
        {t("checkout.badge")}
      </span>
      <span>{children}</span>
    </span>
  );
}

import { Loader2, Search } from "lucide-react";
import { buttonClass } from "~/components/ui";
import { useT } from "~/i18n";

/** The submit button of an admin search form, level with its fields; a spinner while busy. */
export function AdminSearchButton({ busy }: { busy: boolean }) {
  const t = useT();
  return (
    <button type="submit" className={`${buttonClass.primary} h-[46px]`}>
      {busy ? (
        <Loader2 aria-hidden className="size-4 animate-spin" />
      ) : (
        <Search aria-hidden className="size-4" />
      )}
      {t("admin.searchButton")}
    </button>
  );
}

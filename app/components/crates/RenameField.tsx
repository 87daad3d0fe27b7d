import type { Row } from "./CrateList";
import { Check, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useT } from "~/i18n";

/** The name as an input: Enter (or the tick) saves, Escape (or the cross) cancels. */
export function RenameField({
  crate,
  onSave,
  onCancel,
}: {
  crate: Row;
  onSave: (v: string) => void;
  onCancel: () => void;
}) {
  const t = useT();
  const [value, setValue] = useState(crate.crateName);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(value);
      }}
    >
      <label htmlFor={`rename-${crate.crateUuid}`} className="sr-only">
        {t("crates.newName")}
      </label>
      <input
        ref={ref}
        id={`rename-${crate.crateUuid}`}
        value={value}
        maxLength={100}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => e.key === "Escape" && (e.preventDefault(), onCancel())}
        data-testid="rename-input"
        className="block min-w-0 flex-1 rounded-lg border border-brand-light bg-ink-900 px-2.5 py-1.5 font-semibold text-white"
      />
      <button
        type="submit"
        aria-label={t("common.save")}
        className="grid size-8 place-items-center rounded-full text-success hover:bg-white/10"
      >
        <Check aria-hidden className="size-4" />
      </button>
      <button
        type="button"
        aria-label={t("common.cancel")}
        onClick={onCancel}
        className="grid size-8 place-items-center rounded-full text-ink-200 hover:bg-white/10"
      >
        <X aria-hidden className="size-4" />
      </button>
    </form>
  );
}

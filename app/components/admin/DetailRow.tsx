import type { ReactNode } from "react";

/** A label and its value in a definition list (`<dl>`): one line of a record. */
export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 sm:grid-cols-[12rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-ink-300">{label}</dt>
      <dd className="break-words text-ink-50">{children}</dd>
    </div>
  );
}

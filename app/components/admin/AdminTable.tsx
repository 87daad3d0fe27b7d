import type { ReactNode } from "react";

export interface AdminColumn {
  label: string;
  align?: "right";
}

/**
 * The frame of every admin list: a scrollable, labelled region (keyboard-focusable, so a
 * wide table can be scrolled without a mouse), the column heads, and one "nothing here" row
 * when the page is empty. `busy` dims it while a new search loads. Rows are the children.
 */
export function AdminTable({
  label,
  columns,
  empty,
  isEmpty,
  busy = false,
  minWidth = "min-w-[40rem]",
  children,
}: {
  label: string;
  columns: AdminColumn[];
  empty: string;
  isEmpty: boolean;
  busy?: boolean;
  /** A Tailwind min-width class (the table scrolls sideways below it). */
  minWidth?: string;
  children: ReactNode;
}) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      aria-busy={busy || undefined}
      className={`mt-6 overflow-x-auto rounded-2xl border border-line bg-panel/70 transition-opacity ${busy ? "opacity-60" : ""}`}
    >
      <table className={`w-full ${minWidth} text-left text-sm`}>
        <thead className="border-b border-line text-ink-300">
          <tr>
            {columns.map((col) => (
              <th
                key={col.label}
                scope="col"
                className={`px-4 py-3 font-semibold ${col.align === "right" ? "text-right" : ""}`}
              >
                {col.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {isEmpty && (
            <tr>
              <td colSpan={columns.length} className="px-4 py-10 text-center text-ink-200">
                {empty}
              </td>
            </tr>
          )}
          {children}
        </tbody>
      </table>
    </div>
  );
}

import type { AdminDebtRow } from "../../../workers/merch-service/token-shop/admin-token-accounts";
import { Link } from "@remix-run/react";
import { AdminTable } from "~/components/admin/AdminTable";
import { useT } from "~/i18n";

/**
 * Accounts that owe tokens after a refund, largest first, on the admin users page. Shown only
 * when there are some: most days there are none.
 */
export function AdminDebts({ rows, total }: { rows: AdminDebtRow[]; total: number }) {
  const t = useT();
  if (rows.length === 0) return null;
  return (
    <section
      className="mt-8 rounded-2xl border border-danger/40 bg-danger/5 p-5"
      aria-labelledby="admin-debts"
      data-testid="admin-debts"
    >
      <h2 id="admin-debts" className="text-lg font-bold text-white">
        {t("adminDebts.heading")}
      </h2>
      <p className="mt-1 text-sm text-ink-200">{t("adminDebts.lede")}</p>
      {total > rows.length && (
        <p className="mt-1 text-sm text-ink-300">
          {t("adminDebts.more", { count: rows.length, total })}
        </p>
      )}
      <AdminTable
        label={t("adminDebts.heading")}
        columns={[
          { label: t("adminDebts.col.user") },
          { label: t("adminDebts.col.debt"), align: "right" },
        ]}
        empty=""
        isEmpty={false}
        minWidth="min-w-[24rem]"
      >
        {rows.map((r) => (
          <tr key={r.id} data-testid="admin-debt-row">
            <td className="px-4 py-3">
              {r.userId !== null ? (
                <Link
                  to={`/admin/users/${r.userId}`}
                  className="font-semibold text-white hover:underline"
                >
                  {r.nickname ?? r.userUuid}
                </Link>
              ) : (
                <code className="font-mono text-sm">{r.userUuid}</code>
              )}
              {r.email && <span className="ml-2 text-ink-300">{r.email}</span>}
            </td>
            <td className="px-4 py-3 text-right font-semibold tabular-nums text-danger">
              {t("adminDebts.tokens", { count: r.debt ?? 0 })}
            </td>
          </tr>
        ))}
      </AdminTable>
    </section>
  );
}

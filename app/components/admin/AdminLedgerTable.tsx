import type { LedgerEntry } from "../../../durable/token-account";
import { AdminTable } from "~/components/admin/AdminTable";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";

/** Token ledger entries for admins: when, what, how many, the balance and debt after, and why. */
export function AdminLedgerTable({
  label,
  entries,
  empty,
  testId,
}: {
  label: string;
  entries: LedgerEntry[];
  empty: string;
  testId: string;
}) {
  const t = useT();
  const locale = useLocale();
  return (
    <AdminTable
      label={label}
      columns={[
        { label: t("adminTokens.col.when") },
        { label: t("adminTokens.col.type") },
        { label: t("adminTokens.col.amount"), align: "right" },
        { label: t("adminTokens.col.after"), align: "right" },
        { label: t("adminTokens.col.memo") },
      ]}
      empty={empty}
      isEmpty={entries.length === 0}
      minWidth="min-w-[44rem]"
    >
      {entries.map((e) => (
        <tr key={e.id} data-testid={testId}>
          <td className="whitespace-nowrap px-4 py-3 text-ink-100">
            {formatDateTime(e.createdAt, locale)}
          </td>
          <td className="px-4 py-3 font-medium text-white">{t(`adminTokens.type.${e.type}`)}</td>
          <td className="px-4 py-3 text-right tabular-nums text-ink-50">{e.amount}</td>
          <td className="px-4 py-3 text-right tabular-nums text-ink-100">
            {t("adminTokens.after", { balance: e.balance, debt: e.debt })}
          </td>
          <td className="max-w-[28ch] truncate px-4 py-3 text-ink-200" title={e.memo ?? undefined}>
            {e.memo}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

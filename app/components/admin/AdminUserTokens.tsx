import type { AdminUserTokens as Tokens } from "../../../workers/merch-service/token-shop/admin-token-accounts";
import { AdminLedgerTable } from "~/components/admin/AdminLedgerTable";
import { DetailRow } from "~/components/admin/DetailRow";
import { useT } from "~/i18n";

/**
 * A user's tokens on the admin user page: the balance, what purchases hold, the debt refunds
 * left, the refund entries (taken back, debt paid) and the latest transactions.
 */
export function AdminUserTokens({ tokens }: { tokens: Tokens }) {
  const t = useT();
  const { account } = tokens;
  return (
    <section className="mt-10" aria-labelledby="admin-tokens" data-testid="admin-user-tokens">
      <h2 id="admin-tokens" className="text-xl font-bold text-white">
        {t("adminTokens.heading")}
      </h2>
      {!account ? (
        <p className="mt-3 text-ink-200">{t("adminTokens.none")}</p>
      ) : (
        <>
          <dl className="mt-4 divide-y divide-line rounded-2xl border border-line bg-panel/70 px-5">
            <DetailRow label={t("adminTokens.balance")}>
              <span data-testid="admin-token-balance">{account.balance}</span>
            </DetailRow>
            <DetailRow label={t("adminTokens.held")}>{account.heldBalance}</DetailRow>
            <DetailRow label={t("adminTokens.debt")}>
              <span
                data-testid="admin-token-debt"
                className={account.debt > 0 ? "font-semibold text-danger" : undefined}
              >
                {account.debt}
              </span>
            </DetailRow>
            <DetailRow label={t("adminTokens.status")}>{account.status}</DetailRow>
          </dl>
          <h3 className="mt-8 text-lg font-semibold text-white">{t("adminTokens.refunds")}</h3>
          <AdminLedgerTable
            label={t("adminTokens.refunds")}
            entries={tokens.refunds}
            empty={t("adminTokens.refundsEmpty")}
            testId="admin-refund-row"
          />
          <h3 className="mt-8 text-lg font-semibold text-white">{t("adminTokens.recent")}</h3>
          <AdminLedgerTable
            label={t("adminTokens.recent")}
            entries={tokens.recent}
            empty={t("adminTokens.refundsEmpty")}
            testId="admin-ledger-row"
          />
        </>
      )}
    </section>
  );
}

import { Link, NavLink, useLoaderData, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminPager } from "~/components/admin/AdminPager";
import { AdminTable } from "~/components/admin/AdminTable";
import { Avatar } from "~/components/Avatar";
import { ActionDialog } from "~/components/moderation/ActionDialog";
import { useToast } from "~/components/Toaster";
import { button, PageTitle } from "~/components/ui";
import { plural, useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import { USER_SERVICE } from "~/lib/moderation";
import type { User } from "~/lib/types";
import type { loader } from "~/routes/admin.deactivations";

type Kind = "deactivate" | "cancelDeactivation" | "reactivate";

/** Deactivation requests and deactivated accounts, with deactivate, cancel and reactivate. */
export function DeactivationsScreen() {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const revalidator = useRevalidator();
  const { state, users, total, page, pageCount } = useLoaderData<typeof loader>();
  const [open, setOpen] = useState<{ kind: Kind; user: User } | null>(null);

  const run = async (kind: Kind, u: User, reason: string) => {
    const id = encodeURIComponent(u.uuid);
    const label = t(`mod.action.${kind}`);
    try {
      if (kind === "deactivate")
        await apiRequest(`${USER_SERVICE}/users/deactivate/${id}`, { method: "DELETE" });
      else if (kind === "reactivate")
        await apiRequest(`${USER_SERVICE}/users/reactivate/${id}`, { method: "POST" });
      else
        await apiRequest(`${USER_SERVICE}/users/cancel-requested-deactivate`, {
          method: "POST",
          json: { userUuid: u.uuid },
        });
    } catch (err) {
      toast.error(t("mod.failed", { action: label, reason: errorText(err, t) }));
      return false;
    }
    if (reason)
      await apiRequest(`${USER_SERVICE}/moderation-comments`, {
        method: "POST",
        json: { userUuid: u.uuid, comment: t("mod.noteFor", { action: label, reason }) },
      }).catch((err: unknown) => toast.error(errorText(err, t)));
    toast.success(t(`mod.done.${kind}`, { name: u.nickname }));
    revalidator.revalidate();
    return true;
  };

  const tab = (to: string, label: string, active: boolean) => (
    <NavLink
      to={to}
      className={`rounded-full px-4 py-2 text-sm font-semibold ${active ? "bg-brand text-white" : "text-ink-100 hover:bg-white/10"}`}
      aria-current={active ? "page" : undefined}
    >
      {label}
    </NavLink>
  );

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("deact.title")}</PageTitle>
        <p className="text-ink-200">{plural(t, "deact.total", total)}</p>
      </div>
      <div className="mt-4 flex gap-1">
        {tab("/admin/deactivations", t("deact.requested"), state === "requested")}
        {tab(
          "/admin/deactivations?state=deactivated",
          t("deact.deactivatedTab"),
          state === "deactivated",
        )}
      </div>
      <AdminTable
        label={t("deact.title")}
        columns={[
          { label: t("deact.col.user") },
          { label: t("deact.col.email") },
          { label: t("deact.col.when") },
          { label: t("deact.col.actions") },
        ]}
        empty={state === "requested" ? t("deact.empty") : t("deact.emptyDeactivated")}
        isEmpty={users.length === 0}
      >
        {users.map((u) => (
          <tr key={u.uuid} className="hover:bg-white/5" data-testid="deactivation-row">
            <td className="px-4 py-3">
              <Link
                to={`/moderation/${u.uuid}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
              >
                <Avatar name={u.nickname} src={u.profilePicture} color={u.color} size={32} />
                <span className="max-w-[16ch] truncate">{u.nickname}</span>
              </Link>
            </td>
            <td className="max-w-[22ch] truncate px-4 py-3 text-ink-100">{u.email}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-100">
              {formatDateTime(u.deactivationRequestedAt ?? u.updatedAt, locale)}
            </td>
            <td className="px-4 py-3">
              <span className="flex flex-wrap gap-2">
                {state === "requested" ? (
                  <>
                    <button
                      type="button"
                      className={button("secondary", "sm")}
                      onClick={() => setOpen({ kind: "deactivate", user: u })}
                      data-testid="deact-deactivate"
                    >
                      {t("mod.action.deactivate")}
                    </button>
                    <button
                      type="button"
                      className={button("ghost", "sm")}
                      onClick={() => setOpen({ kind: "cancelDeactivation", user: u })}
                      data-testid="deact-cancel"
                    >
                      {t("deact.cancel")}
                    </button>
                  </>
                ) : (
                  <button
                    type="button"
                    className={button("secondary", "sm")}
                    onClick={() => setOpen({ kind: "reactivate", user: u })}
                    data-testid="deact-reactivate"
                  >
                    {t("mod.action.reactivate")}
                  </button>
                )}
              </span>
            </td>
          </tr>
        ))}
      </AdminTable>
      <AdminPager page={page} pageCount={pageCount} />
      {open && (
        <ActionDialog
          open
          title={t(`mod.confirm.${open.kind}`, { name: open.user.nickname })}
          body={t(`mod.confirm.${open.kind}Body`, { name: open.user.nickname })}
          confirmLabel={t(`mod.action.${open.kind}`)}
          reason="optional"
          danger={open.kind === "deactivate"}
          onSubmit={(reason) => run(open.kind, open.user, reason)}
          onClose={() => setOpen(null)}
        />
      )}
    </div>
  );
}

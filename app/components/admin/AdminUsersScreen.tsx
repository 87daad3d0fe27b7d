import type { loader } from "~/routes/admin.users._index";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { AdminDebts } from "~/components/admin/AdminDebts";
import { AdminSearchButton } from "~/components/admin/AdminSearchButton";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { USER_ROLES } from "../../../shared/roles";
import { Avatar } from "~/components/Avatar";
import { AdminPager } from "~/components/admin/AdminPager";
import { Field, PageTitle, Select } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";

export function AdminUsersScreen() {
  const t = useT();
  const locale = useLocale();
  const {
    q,
    role,
    data: users,
    total,
    page,
    pageCount,
    debts,
    debtsTotal,
  } = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const searching = nav.state === "loading" && nav.location.pathname === "/admin/users";

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("admin.heading")}</PageTitle>
        <p className="text-ink-200" data-testid="admin-total">
          {t("admin.total", { total })}
        </p>
      </div>

      <AdminDebts rows={debts} total={debtsTotal} />

      <Form
        method="get"
        role="search"
        className="mt-6 grid gap-3 rounded-2xl border border-line bg-panel/70 p-4 sm:grid-cols-[1fr_14rem_auto] sm:items-end"
      >
        <Field label={t("admin.search")} name="q" type="search" defaultValue={q} key={`q-${q}`} />
        <Select label={t("admin.role")} name="role" defaultValue={role} key={`role-${role}`}>
          <option value="">{t("admin.allRoles")}</option>
          {USER_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`role.${r}`)}
            </option>
          ))}
        </Select>
        <AdminSearchButton busy={searching} />
      </Form>

      <AdminTable
        label={t("admin.heading")}
        columns={[
          { label: t("admin.col.user") },
          { label: t("admin.col.email") },
          { label: t("admin.col.roles") },
          { label: t("admin.col.verified") },
          { label: t("admin.col.created") },
          { label: t("deact.col.actions") },
        ]}
        empty={t("admin.empty")}
        isEmpty={users.length === 0}
        busy={searching}
        minWidth="min-w-[40rem]"
      >
        {users.map((u) => (
          <tr key={u.id} className="transition hover:bg-white/5" data-testid="admin-user-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/users/${u.id}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
              >
                <Avatar name={u.nickname} src={u.profilePicture} color={u.color} size={32} />
                <span className="max-w-[16ch] truncate">{u.nickname}</span>
              </Link>
            </td>
            <td className="max-w-[22ch] truncate px-4 py-3 text-ink-100">{u.email}</td>
            <td className="px-4 py-3">
              <span className="flex flex-wrap gap-1">
                {(u.roles ?? []).map((r) => (
                  <span
                    key={r}
                    className="rounded-full bg-white/10 px-2 py-0.5 text-xs font-medium text-ink-50"
                  >
                    {USER_ROLES.includes(r as never)
                      ? t(`role.${r as (typeof USER_ROLES)[number]}`)
                      : r}
                  </span>
                ))}
              </span>
            </td>
            <td className="px-4 py-3 text-ink-100">
              {u.emailVerified ? t("common.yes") : t("common.no")}
            </td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-100">
              {formatDate(u.createdAt, locale)}
            </td>
            <td className="px-4 py-3">
              <Link
                to={`/moderation/${u.uuid}`}
                className="text-sm font-semibold text-brand-light hover:underline"
              >
                {t("mod.open")}
              </Link>
            </td>
          </tr>
        ))}
      </AdminTable>

      <AdminPager page={page} pageCount={pageCount} />
    </div>
  );
}

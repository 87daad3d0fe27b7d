import { useLoaderData, useRevalidator } from "@remix-run/react";
import { Plus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminPager } from "~/components/admin/AdminPager";
import { AdminTable } from "~/components/admin/AdminTable";
import { ConfirmDialog } from "~/components/Dialog";
import { useToast } from "~/components/Toaster";
import { button, Field, PageTitle } from "~/components/ui";
import { plural, useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import { USER_SERVICE } from "~/lib/moderation";
import type { loader, WhitelistEntry } from "~/routes/admin.phones";

/** The phone whitelist: add a number with its fixed code, see them all, remove one. */
export function PhoneWhitelistScreen() {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const revalidator = useRevalidator();
  const { entries, total, page, pageCount } = useLoaderData<typeof loader>();
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState<WhitelistEntry | null>(null);

  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setBusy(true);
    try {
      const row = await apiRequest<WhitelistEntry>(`${USER_SERVICE}/admin/phoneNumbers`, {
        method: "POST",
        json: {
          phone: String(f.get("phone") ?? "").trim(),
          code: String(f.get("code") ?? "").trim(),
          ...(String(f.get("note") ?? "").trim() ? { note: String(f.get("note")).trim() } : {}),
        },
      });
      toast.success(t("phones.added", { phone: row.phoneNumber }));
      form.reset();
      revalidator.revalidate();
    } catch (err) {
      toast.error(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (entry: WhitelistEntry) => {
    setRemoving(null);
    try {
      await apiRequest(`${USER_SERVICE}/admin/phoneNumbers/${entry.id}`, { method: "DELETE" });
      toast.success(t("phones.removed", { phone: entry.phoneNumber }));
      revalidator.revalidate();
    } catch (err) {
      toast.error(errorText(err, t));
    }
  };

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("phones.title")}</PageTitle>
        <p className="text-ink-200">{plural(t, "phones.total", total)}</p>
      </div>
      <p className="mt-2 max-w-prose text-ink-200">{t("phones.lede")}</p>
      <form
        onSubmit={add}
        className="mt-6 grid gap-4 rounded-2xl border border-line bg-white/5 p-4 sm:grid-cols-[1fr_10rem_1fr_auto] sm:items-start"
        aria-label={t("phones.add")}
      >
        <Field
          label={t("phones.number")}
          name="phone"
          type="tel"
          placeholder="+34 612 34 56 78"
          maxLength={40}
          required
        />
        <Field
          label={t("phones.code")}
          name="code"
          inputMode="numeric"
          pattern="[0-9]{4,8}"
          maxLength={8}
          required
          hint={t("phones.codeHint")}
        />
        <Field label={t("phones.note")} name="note" maxLength={200} hint={t("phones.noteHint")} />
        <button
          type="submit"
          className={`${button("primary")} sm:mt-7`}
          aria-disabled={busy || undefined}
        >
          <Plus aria-hidden className="size-4" />
          {t(busy ? "phones.adding" : "phones.add")}
        </button>
      </form>
      <AdminTable
        label={t("phones.title")}
        columns={[
          { label: t("phones.col.number") },
          { label: t("phones.col.code") },
          { label: t("phones.col.note") },
          { label: t("phones.col.added") },
          { label: t("phones.col.actions") },
        ]}
        empty={t("phones.empty")}
        isEmpty={entries.length === 0}
      >
        {entries.map((e) => (
          <tr key={e.id} className="hover:bg-white/5" data-testid="whitelist-row">
            <td className="whitespace-nowrap px-4 py-3 font-mono text-white">{e.phoneNumber}</td>
            <td className="px-4 py-3 font-mono text-ink-100">{e.code}</td>
            <td className="max-w-[28ch] truncate px-4 py-3 text-ink-100">{e.note}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-100">
              {formatDateTime(e.createdAt, locale)}
            </td>
            <td className="px-4 py-3">
              <button
                type="button"
                className={button("ghost", "sm")}
                onClick={() => setRemoving(e)}
                data-testid="whitelist-remove"
              >
                {t("phones.remove")}
              </button>
            </td>
          </tr>
        ))}
      </AdminTable>
      <AdminPager page={page} pageCount={pageCount} />
      <ConfirmDialog
        open={!!removing}
        title={t("phones.confirmRemove", { phone: removing?.phoneNumber ?? "" })}
        confirmLabel={t("phones.remove")}
        danger
        onConfirm={() => removing && remove(removing)}
        onClose={() => setRemoving(null)}
      >
        <p>{t("phones.confirmRemoveBody")}</p>
      </ConfirmDialog>
    </div>
  );
}

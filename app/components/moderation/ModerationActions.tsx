import { useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { BADGES, type UserRole } from "../../../shared/roles";
import { useToast } from "~/components/Toaster";
import { button, Select } from "~/components/ui";
import { useLocale, useT, type MessageKey, type T } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import { BAN_DURATIONS, USER_SERVICE, type ModerationState } from "~/lib/moderation";
import { ActionDialog } from "./ActionDialog";

export type ActionKind =
  | "kick"
  | "ban"
  | "temporaryBan"
  | "unban"
  | "addRole"
  | "removeRole"
  | "badges"
  | "deactivate"
  | "reactivate"
  | "cancelDeactivation";

/** The actions whose reason the API takes and shows the person; the rest keep it as a note. */
const TOLD: ActionKind[] = ["kick", "ban", "temporaryBan"];
const DANGER: ActionKind[] = ["kick", "ban", "temporaryBan", "deactivate"];

export function durationLabel(t: T, minutes: number) {
  if (minutes < 60) return t("mod.minutes", { count: minutes });
  if (minutes === 60) return t("mod.hour");
  if (minutes < 24 * 60) return t("mod.hours", { count: minutes / 60 });
  if (minutes === 24 * 60) return t("mod.day");
  if (minutes < 365 * 24 * 60) return t("mod.days", { count: minutes / (24 * 60) });
  return t("mod.year");
}

/**
 * The moderation page's action buttons and their confirmations (issue 15). Only what this
 * moderator may do is offered (GET /users/{id}/moderation: mayAct, grantableRoles; admins
 * deactivate); the API checks again. Success and failure toast; the page reloads its data.
 */
export function ModerationActions({
  state,
  isAdmin,
}: {
  state: ModerationState;
  isAdmin: boolean;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const revalidator = useRevalidator();
  const [open, setOpen] = useState<ActionKind | null>(null);
  const { user, mayAct, grantableRoles } = state;
  const name = user.nickname;
  const uuid = user.uuid;
  const id = encodeURIComponent(uuid);
  const addable = grantableRoles.filter((r) => !user.roles.includes(r));
  const removable = grantableRoles.filter((r) => user.roles.includes(r));

  const shown: ActionKind[] = [];
  if (mayAct) {
    shown.push("kick", "ban", "temporaryBan");
    if (user.ban) shown.push("unban");
    if (addable.length) shown.push("addRole");
    if (removable.length) shown.push("removeRole");
    shown.push("badges");
    if (user.deactivationRequestedAt && !user.deactivated) shown.push("cancelDeactivation");
    if (isAdmin) shown.push(user.deactivated ? "reactivate" : "deactivate");
  }

  async function call(kind: ActionKind, reason: string, form: FormData) {
    const json = (body: unknown) => ({ method: "POST", json: body });
    const role = String(form.get("role") ?? "") as UserRole;
    switch (kind) {
      case "kick":
        return apiRequest<unknown>(`${USER_SERVICE}/users/kick`, json({ userUuid: uuid, reason }));
      case "ban":
        return apiRequest<unknown>(`${USER_SERVICE}/users/ban`, json({ userUuid: uuid, reason }));
      case "temporaryBan":
        return apiRequest<unknown>(
          `${USER_SERVICE}/users/temporary-ban`,
          json({ userUuid: uuid, reason, minutes: Number(form.get("minutes")) }),
        );
      case "unban":
        return apiRequest<unknown>(`${USER_SERVICE}/users/unban`, json({ userUuid: uuid }));
      case "addRole":
        return apiRequest<unknown>(
          `${USER_SERVICE}/users/add-role`,
          json({ userUuid: uuid, role }),
        );
      case "removeRole":
        return apiRequest<unknown>(
          `${USER_SERVICE}/users/remove-role`,
          json({ userUuid: uuid, role }),
        );
      case "badges":
        return apiRequest<unknown>(
          `${USER_SERVICE}/users/change-badges-admin`,
          json({ userUuid: uuid, badges: form.getAll("badge").map(String) }),
        );
      case "deactivate":
        return apiRequest<unknown>(`${USER_SERVICE}/users/deactivate/${id}`, { method: "DELETE" });
      case "reactivate":
        return apiRequest<unknown>(`${USER_SERVICE}/users/reactivate/${id}`, { method: "POST" });
      case "cancelDeactivation":
        return apiRequest<unknown>(
          `${USER_SERVICE}/users/cancel-requested-deactivate`,
          json({ userUuid: uuid }),
        );
    }
  }

  async function submit(kind: ActionKind, reason: string, form: FormData): Promise<boolean> {
    const label = t(`mod.action.${kind}`);
    if (TOLD.includes(kind) && !reason) {
      toast.error(t("mod.reasonMissing"));
      return false;
    }
    let answer: unknown;
    try {
      answer = await call(kind, reason, form);
    } catch (err) {
      toast.error(t("mod.failed", { action: label, reason: errorText(err, t) }));
      return false;
    }
    // A reason the call itself does not take is kept as a note on the account.
    if (reason && !TOLD.includes(kind)) {
      await apiRequest(`${USER_SERVICE}/moderation-comments`, {
        method: "POST",
        json: { userUuid: uuid, comment: t("mod.noteFor", { action: label, reason }) },
      }).catch((err: unknown) => toast.error(errorText(err, t)));
    }
    const a = answer as { message?: unknown; ban?: { until?: string | null } | null } | null;
    const role = String(form.get("role") ?? "");
    toast.success(
      typeof a?.message === "string"
        ? a.message
        : t(`mod.done.${kind}`, {
            name,
            until: formatDateTime(a?.ban?.until, locale),
            role: role ? t(`role.${role}` as MessageKey) : "",
          }),
    );
    revalidator.revalidate();
    return true;
  }

  return (
    <section
      aria-labelledby="mod-actions"
      className="rounded-2xl border border-line bg-panel/70 p-5"
    >
      <h2 id="mod-actions" className="text-lg font-bold text-white">
        {t("mod.actions")}
      </h2>
      {!mayAct && state.refusal && (
        <p className="mt-2 text-sm text-ink-200" data-testid="mod-refusal">
          {t(
            `mod.refusal.${state.refusal === "self" || state.refusal === "outranked" ? state.refusal : "notModerator"}`,
          )}
        </p>
      )}
      <div className="mt-4 flex flex-wrap gap-2">
        {shown.map((kind) => (
          <button
            key={kind}
            type="button"
            onClick={() => setOpen(kind)}
            className={
              DANGER.includes(kind)
                ? "inline-flex items-center justify-center gap-2 rounded-full border border-danger/60 px-4 py-2 text-sm font-semibold text-danger transition hover:bg-danger/10"
                : button("secondary", "sm")
            }
            data-testid={`mod-${kind}`}
          >
            {t(`mod.action.${kind}`)}
          </button>
        ))}
      </div>
      {open && (
        <ActionDialog
          open
          title={t(`mod.confirm.${open}`, { name })}
          body={t(`mod.confirm.${open}Body`, { name })}
          confirmLabel={t(`mod.action.${open}`)}
          reason={TOLD.includes(open) ? "required" : "optional"}
          danger={DANGER.includes(open)}
          onSubmit={(reason, form) => submit(open, reason, form)}
          onClose={() => setOpen(null)}
        >
          {open === "temporaryBan" && (
            <Select label={t("mod.duration")} name="minutes" defaultValue={String(24 * 60)}>
              {BAN_DURATIONS.map((m) => (
                <option key={m} value={m}>
                  {durationLabel(t, m)}
                </option>
              ))}
            </Select>
          )}
          {(open === "addRole" || open === "removeRole") && (
            <Select label={t("mod.role")} name="role">
              {(open === "addRole" ? addable : removable).map((r) => (
                <option key={r} value={r}>
                  {t(`role.${r}`)}
                </option>
              ))}
            </Select>
          )}
          {open === "badges" && (
            <fieldset>
              <legend className="mb-1.5 text-sm font-semibold text-ink-50">
                {t("mod.badges")}
              </legend>
              <div className="flex flex-wrap gap-2">
                {BADGES.map((b) => (
                  <label
                    key={b}
                    className="inline-flex cursor-pointer items-center gap-2 rounded-full border border-line px-3 py-1.5 text-sm has-[:checked]:border-brand-light has-[:checked]:bg-brand/20"
                  >
                    <input
                      type="checkbox"
                      name="badge"
                      value={b}
                      defaultChecked={user.badges.includes(b)}
                      className="accent-brand"
                    />
                    {t(`badge.${b}`)}
                  </label>
                ))}
              </div>
            </fieldset>
          )}
        </ActionDialog>
      )}
    </section>
  );
}

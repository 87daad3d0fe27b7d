import { useState } from "react";
import type { AvatarStatus } from "../../../workers/db/points-schema";
import { Field, Select, TextArea } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import type { AvatarDto } from "~/lib/avatars";

/**
 * The create and edit forms' fields (admin.avatars.new, admin.avatars.$slug). `statuses`
 * comes from the page's loader (the schema's list), so no server module reaches the browser.
 */
export function AvatarFields({
  statuses,
  avatar,
  values,
  errors,
}: {
  statuses: readonly AvatarStatus[];
  avatar?: AvatarDto;
  values?: Record<string, string>;
  errors?: Partial<Record<string, MessageKey>>;
}) {
  const t = useT();
  const v = (k: string, fallback: unknown) =>
    values?.[k] ?? (fallback === null || fallback === undefined ? "" : String(fallback));
  const [status, setStatus] = useState(v("status", avatar?.status ?? "PUBLIC"));
  const err = (k: string) => (errors?.[k] ? t(errors[k]!) : undefined);
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      {!avatar && (
        <Field
          label={t("adminAvatars.slug")}
          name="slug"
          required
          maxLength={60}
          pattern="[a-z0-9](?:[a-z0-9\-]{0,58}[a-z0-9])?"
          hint={t("adminAvatars.slugHint")}
          defaultValue={v("slug", "")}
          error={err("slug")}
          autoCapitalize="none"
          spellCheck={false}
        />
      )}
      <Field
        label={t("adminAvatars.name")}
        name="name"
        required
        maxLength={60}
        defaultValue={v("name", avatar?.name)}
        error={err("name")}
      />
      <TextArea
        label={t("adminAvatars.description")}
        name="description"
        maxLength={300}
        defaultValue={v("description", avatar?.description)}
        className="sm:col-span-2"
      />
      <Select
        label={t("adminAvatars.status")}
        name="status"
        value={status}
        onChange={(e) => setStatus(e.target.value)}
      >
        {statuses.map((s) => (
          <option key={s} value={s}>
            {t(`avatars.status.${s}`)}
          </option>
        ))}
      </Select>
      <label className="flex items-center gap-3 self-end rounded-xl border border-line bg-ink-900/70 px-3.5 py-3 text-sm text-ink-100">
        <input
          type="checkbox"
          name="discordOnly"
          value="true"
          defaultChecked={v("discordOnly", avatar?.discordOnly) === "true"}
          className="size-4 accent-brand"
        />
        {t("adminAvatars.discordOnly")}
      </label>
      {status === "SEASON_AWARD" && (
        <>
          <Field
            label={t("adminAvatars.seasonId")}
            name="seasonId"
            type="number"
            min={1}
            required
            defaultValue={v("seasonId", avatar?.seasonId)}
            hint={t("adminAvatars.seasonHint")}
          />
          <Field
            label={t("adminAvatars.pointsThreshold")}
            name="pointsThreshold"
            type="number"
            min={0}
            required
            defaultValue={v("pointsThreshold", avatar?.pointsThreshold)}
          />
        </>
      )}
    </div>
  );
}

/** The art file input with its rules. */
export function ArtInput() {
  const t = useT();
  return (
    <div>
      <label className="mb-1.5 block text-sm font-medium text-ink-100" htmlFor="avatar-art">
        {t("adminAvatars.art")}
      </label>
      <input
        id="avatar-art"
        type="file"
        name="file"
        accept="image/png,image/jpeg,image/webp,image/svg+xml"
        aria-describedby="avatar-art-hint"
        className="block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-sm text-ink-100 file:mr-3 file:rounded-full file:border-0 file:bg-white/10 file:px-3 file:py-1.5 file:font-semibold file:text-ink-50"
      />
      <p id="avatar-art-hint" className="mt-1.5 text-sm text-ink-300">
        {t("adminAvatars.artHint")}
      </p>
    </div>
  );
}

/** Reads the fields back into the API's JSON; field errors are message keys. */
export function avatarBody(form: FormData, creating: boolean) {
  const s = (k: string) => {
    const x = form.get(k);
    return typeof x === "string" ? x.trim() : "";
  };
  const values = Object.fromEntries(
    ["slug", "name", "description", "status", "seasonId", "pointsThreshold"].map((k) => [k, s(k)]),
  );
  values.discordOnly = form.get("discordOnly") ? "true" : "false";
  const errors: Partial<Record<string, MessageKey>> = {};
  if (creating && !values.slug) errors.slug = "adminAvatars.slugRequired";
  else if (creating && !/^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/.test(values.slug))
    errors.slug = "adminAvatars.slugInvalid";
  if (!values.name) errors.name = "adminAvatars.nameRequired";
  const season = values.status === "SEASON_AWARD";
  const json: Record<string, unknown> = {
    name: values.name,
    description: values.description || null,
    status: values.status || "PUBLIC",
    discordOnly: values.discordOnly === "true",
    seasonId: season && values.seasonId ? Number(values.seasonId) : null,
    pointsThreshold: season && values.pointsThreshold ? Number(values.pointsThreshold) : null,
  };
  if (creating) json.slug = values.slug;
  return { json, values, errors };
}

/** The art file from a form, or null when none was chosen. */
export function artFile(form: FormData): File | null {
  const f = form.get("file");
  return f instanceof File && f.size > 0 ? f : null;
}

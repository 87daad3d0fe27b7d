import type { loader, action } from "~/routes/profile.edit";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { ImageUpload, type ImageKind } from "~/components/profile/ImageUpload";
import {
  Alert,
  Field,
  Select,
  SubmitButton,
  TextArea,
  buttonClass,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import { userColor } from "~/lib/format";
import { type FormState } from "~/lib/forms";
import type { User } from "~/lib/types";
import { NewPasswordField } from "~/components/auth/NewPasswordField";
import { ConfirmPasswordField } from "~/components/auth/ConfirmPasswordField";

const ZODIAC = [
  "aries",
  "taurus",
  "gemini",
  "cancer",
  "leo",
  "virgo",
  "libra",
  "scorpio",
  "sagittarius",
  "capricorn",
  "aquarius",
  "pisces",
] as const;

export function EditProfileScreen() {
  const t = useT();
  const { user } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as
    (FormState & { kind?: ImageKind; message?: MessageKey }) | undefined;
  useFocusFirstError(result?.ok ? null : result);
  const profile = result?.intent === "profile" ? result : undefined;
  const password = result?.intent === "password" ? result : undefined;
  const upload = result?.intent === "upload" ? result : undefined;
  const v = (k: keyof User) =>
    (profile?.values?.[k] ?? (user[k] as string | null | undefined) ?? "") as string;
  const zodiacValue = v("zodiac").toLowerCase();

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/profile" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("edit.back")}
      </Link>
      <div className="mt-2 flex flex-wrap items-center justify-between gap-3">
        <PageTitle>{t("edit.heading")}</PageTitle>
        <div className="flex flex-wrap gap-4">
          <Link
            to="/settings/connections"
            className={buttonClass.link}
            data-testid="edit-connections"
          >
            {t("linked.short")}
          </Link>
          <Link
            to="/settings/notifications"
            className={buttonClass.link}
            data-testid="edit-notification-settings"
          >
            {t("notif.settingsTitle")}
          </Link>
        </div>
      </div>

      <section aria-labelledby="pictures" className="mt-8">
        <h2 id="pictures" className="text-xl font-bold text-white">
          {t("edit.pictures")}
        </h2>
        <div className="mt-4 grid gap-4 md:grid-cols-[1fr_1.6fr]">
          {(["profilePicture", "coverPicture"] as const).map((kind) => (
            <ImageUpload
              key={kind}
              kind={kind}
              current={user[kind]}
              nickname={user.nickname}
              color={user.color}
              serverResult={upload?.kind === kind ? upload : undefined}
            />
          ))}
        </div>
      </section>

      <section
        aria-labelledby="about-you"
        className="mt-10 rounded-3xl border border-line bg-panel/70 p-5 sm:p-8"
      >
        <h2 id="about-you" className="text-xl font-bold text-white">
          {t("edit.about")}
        </h2>
        <Form method="post" noValidate className="mt-5 grid gap-5 sm:grid-cols-2">
          <input type="hidden" name="intent" value="profile" />
          <div className="empty:hidden sm:col-span-2">
            <Alert error={profile?.error} />
          </div>
          <Field
            label={t("field.nickname")}
            name="nickname"
            autoComplete="nickname"
            required
            minLength={2}
            maxLength={30}
            defaultValue={v("nickname")}
            hint={t("hint.nickname")}
            error={profile?.fieldErrors?.nickname && t(profile.fieldErrors.nickname)}
            className="sm:col-span-2"
          />
          <Field
            label={t("field.firstName")}
            name="firstName"
            autoComplete="given-name"
            maxLength={50}
            defaultValue={v("firstName")}
          />
          <Field
            label={t("field.lastName")}
            name="lastName"
            autoComplete="family-name"
            maxLength={50}
            defaultValue={v("lastName")}
          />
          <Field
            label={t("field.pronoun")}
            name="pronoun"
            maxLength={30}
            defaultValue={v("pronoun")}
            hint={t("hint.pronoun")}
          />
          <Select
            label={t("field.zodiac")}
            name="zodiac"
            defaultValue={ZODIAC.includes(zodiacValue as never) ? zodiacValue : v("zodiac")}
          >
            <option value="">{t("field.zodiacNone")}</option>
            {ZODIAC.map((z) => (
              <option key={z} value={z}>
                {t(`zodiac.${z}`)}
              </option>
            ))}
            {!!v("zodiac") && !ZODIAC.includes(zodiacValue as never) && (
              <option value={v("zodiac")}>{v("zodiac")}</option>
            )}
          </Select>
          <label className="flex cursor-pointer items-center gap-3 sm:col-span-2">
            <input
              type="checkbox"
              name="displayPronouns"
              value="true"
              defaultChecked={profile ? !!profile.values?.displayPronouns : !!user.displayPronouns}
              className="size-5 rounded accent-brand"
            />
            <span className="text-ink-100">{t("field.displayPronouns")}</span>
          </label>
          <div className="sm:col-span-2">
            <label htmlFor="color" className="mb-1.5 block text-sm font-medium text-ink-100">
              {t("field.color")}
            </label>
            <div className="flex items-center gap-3">
              <input
                id="color"
                type="color"
                name="color"
                defaultValue={userColor(v("color"))}
                aria-describedby="color-hint"
                className="h-11 w-16 cursor-pointer rounded-xl border border-line bg-ink-900 p-1"
              />
              <p id="color-hint" className="text-sm text-ink-300">
                {t("hint.color")}
              </p>
            </div>
          </div>
          <TextArea
            label={t("field.bio")}
            name="bio"
            defaultValue={v("bio")}
            hint={t("hint.bio")}
            rows={4}
            maxLength={300}
            className="sm:col-span-2"
          />
          <div className="sm:col-span-2">
            <SubmitButton label="edit.save" pendingLabel="edit.saving" intent="profile" />
          </div>
        </Form>
      </section>

      <section
        aria-labelledby="password"
        className="mt-10 rounded-3xl border border-line bg-panel/70 p-5 sm:p-8"
      >
        <h2 id="password" className="text-xl font-bold text-white">
          {t("password.heading")}
        </h2>
        <Form
          method="post"
          noValidate
          className="mt-5 grid gap-5 sm:grid-cols-2"
          key={password?.ok ? "done" : "form"}
        >
          <input type="hidden" name="intent" value="password" />
          <div className="space-y-3 sm:col-span-2 empty:hidden">
            <Alert error={password?.error} />
            {password?.ok && (
              <Alert success>
                <p>{t("password.done")}</p>
              </Alert>
            )}
          </div>
          <Field
            label={t("field.currentPassword")}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            error={password?.fieldErrors?.password && t(password.fieldErrors.password)}
            className="sm:col-span-2"
          />
          <NewPasswordField
            label="field.newPassword"
            name="newPassword"
            error={password?.fieldErrors?.newPassword}
          />
          <ConfirmPasswordField error={password?.fieldErrors?.confirmPassword} />
          <div className="sm:col-span-2">
            <SubmitButton
              label="password.submit"
              pendingLabel="password.pending"
              intent="password"
              variant="secondary"
            />
          </div>
        </Form>
      </section>
    </div>
  );
}

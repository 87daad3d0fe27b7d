import type { loader, action } from "~/routes/admin.avatars.$slug";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { ArrowLeft, Trash2 } from "lucide-react";
import { AvatarArt } from "~/components/avatars/AvatarArt";
import { ArtInput, AvatarFields } from "~/components/avatars/AvatarFields";
import {
  Alert,
  buttonClass,
  Card,
  SubmitButton,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";
import { type FormState } from "~/lib/forms";

export function AdminAvatarScreen() {
  const t = useT();
  const locale = useLocale();
  const { avatar, statuses } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as FormState | undefined;
  const [params] = useSearchParams();
  useFocusFirstError(result?.ok ? null : result);
  const artError = params.get("artError");
  const of = (intent: string) => (result?.intent === intent ? result : undefined);

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/admin/avatars" className={buttonClass.ghost}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminAvatars.back")}
      </Link>
      <div className="mt-4 flex flex-wrap items-center gap-5">
        <AvatarArt
          slug={avatar.slug}
          src={avatar.thumbnails["256"]}
          size={96}
          alt={t("avatars.artAlt", { name: avatar.name })}
        />
        <div className="min-w-0">
          <PageTitle size="fixed" className="truncate" data-testid="admin-avatar-name">
            {avatar.name}
          </PageTitle>
          <p className="font-mono text-sm text-ink-300">{avatar.slug}</p>
          <p className="mt-1 text-sm text-ink-200">
            {t(`avatars.status.${avatar.status}`)} ·{" "}
            {t("adminAvatars.wearers", { count: avatar.wearers })}
          </p>
        </div>
      </div>
      {params.get("created") && !result && (
        <div className="mt-4">
          <Alert success>{t("adminAvatars.created")}</Alert>
        </div>
      )}
      {artError && !result && (
        <div className="mt-4">
          <Alert
            error={{
              status: 400,
              message: t("adminAvatars.createdNoArt", { reason: artError }),
              generic: false,
            }}
          />
        </div>
      )}

      <div className="mt-6 grid gap-6 lg:grid-cols-[1fr_20rem]">
        <Card>
          <Form method="post" className="space-y-5" noValidate>
            {of("save")?.error && <Alert error={of("save")!.error} />}
            {of("save")?.ok && <Alert success>{t("adminAvatars.saved")}</Alert>}
            <AvatarFields
              statuses={statuses}
              avatar={avatar}
              values={of("save")?.values}
              errors={of("save")?.fieldErrors}
              key={avatar.updatedAt}
            />
            <SubmitButton
              label="adminAvatars.save"
              pendingLabel="adminAvatars.saving"
              intent="save"
            />
          </Form>
        </Card>
        <div className="space-y-6">
          <Card>
            <Form method="post" encType="multipart/form-data" className="space-y-4">
              {of("upload")?.error && <Alert error={of("upload")!.error} />}
              {of("upload")?.ok && <Alert success>{t("adminAvatars.uploaded")}</Alert>}
              {!avatar.hasArt && (
                <p className="text-sm text-ink-200">{t("adminAvatars.artNone")}</p>
              )}
              <ArtInput />
              <SubmitButton
                label="adminAvatars.upload"
                pendingLabel="adminAvatars.uploading"
                intent="upload"
                variant="secondary"
              />
            </Form>
          </Card>
          <Card>
            <Form method="post" className="space-y-3">
              {of("delete")?.error && <Alert error={of("delete")!.error} />}
              <p className="text-sm text-ink-200">{t("adminAvatars.deleteHint")}</p>
              <button
                type="submit"
                name="intent"
                value="delete"
                className={`${buttonClass.secondary} border-danger/60 text-danger hover:bg-danger/10`}
                data-testid="admin-avatar-delete"
              >
                <Trash2 aria-hidden className="size-4" />
                {t("adminAvatars.delete")}
              </button>
            </Form>
          </Card>
        </div>
      </div>

      <section className="mt-8" aria-labelledby="assignments-heading">
        <h2 id="assignments-heading" className="text-xl font-bold text-white">
          {t("adminAvatars.assignments", { count: avatar.assignments.length })}
        </h2>
        {avatar.assignments.length === 0 ? (
          <p className="mt-2 text-ink-200">{t("adminAvatars.noAssignments")}</p>
        ) : (
          <ul className="mt-3 divide-y divide-line rounded-2xl border border-line bg-panel/70">
            {avatar.assignments.map((a) => (
              <li
                key={a.id}
                className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 text-sm"
              >
                <Link to={`/admin/users/${a.userUuid}`} className={buttonClass.link}>
                  {a.userUuid}
                </Link>
                <span className="text-ink-200">
                  {a.type} · {formatDate(a.createdAt, locale)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { AVATAR_STATUSES } from "../../workers/db/points-schema";
import { ArtInput, AvatarFields, artFile, avatarBody } from "~/components/avatars/AvatarFields";
import {
  Alert,
  buttonClass,
  Card,
  SubmitButton,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH_SERVICE, type AvatarDto } from "~/lib/avatars";
import { hasErrors, type FormState } from "~/lib/forms";

export const meta = pageMeta("adminAvatars.title");

export async function loader(args: LoaderFunctionArgs) {
  await requireAdmin(args);
  return { statuses: AVATAR_STATUSES };
}

/**
 * POST /avatars, then (if a file was chosen) PUT /avatars/{slug}/image. The avatar exists
 * even if its art is refused; the edit page then says why and offers the upload again.
 */
export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const form = await args.request.formData();
  const { json, values, errors } = avatarBody(form, true);
  if (hasErrors(errors)) return data<FormState>({ fieldErrors: errors, values }, { status: 400 });
  const res = await callApi<AvatarDto>(args, `${MERCH_SERVICE}/avatars`, {
    method: "POST",
    token,
    json,
  });
  if (!res.ok) return data<FormState>({ error: res, values }, { status: res.status });
  const file = artFile(form);
  const next = `/admin/avatars/${res.data.slug}`;
  if (file) {
    const body = new FormData();
    body.append("file", file, file.name);
    const art = await callApi(args, `${MERCH_SERVICE}/avatars/${res.data.slug}/image`, {
      method: "PUT",
      token,
      body,
    });
    if (!art.ok) return redirect(`${next}?artError=${encodeURIComponent(art.message)}`);
  }
  return redirect(`${next}?created=1`);
}

export default function NewAvatar() {
  const t = useT();
  const { statuses } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/admin/avatars" className={buttonClass.ghost}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminAvatars.back")}
      </Link>
      <Card className="mt-4">
        <PageTitle size="card">{t("adminAvatars.new")}</PageTitle>
        <Form method="post" encType="multipart/form-data" className="mt-6 space-y-5" noValidate>
          {result?.error && <Alert error={result.error} />}
          <AvatarFields statuses={statuses} values={result?.values} errors={result?.fieldErrors} />
          <ArtInput />
          <SubmitButton label="adminAvatars.create" pendingLabel="adminAvatars.creating" />
        </Form>
      </Card>
    </div>
  );
}

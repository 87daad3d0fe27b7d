import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { AVATAR_STATUSES } from "../../workers/db/points-schema";
import { artFile, avatarBody } from "~/components/avatars/AvatarFields";
import { pageMeta } from "~/i18n";
import { requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH_SERVICE, type AvatarDto } from "~/lib/avatars";
import { hasErrors, type FormState } from "~/lib/forms";
import { NewAvatarScreen } from "~/components/admin/NewAvatarScreen";

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
  return <NewAvatarScreen />;
}

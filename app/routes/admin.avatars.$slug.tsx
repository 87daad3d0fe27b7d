import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { AVATAR_STATUSES } from "../../workers/db/points-schema";
import { artFile, avatarBody } from "~/components/avatars/AvatarFields";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH_SERVICE, type AvatarDto } from "~/lib/avatars";
import { formString, hasErrors, type FormState } from "~/lib/forms";
import { AdminAvatarScreen } from "~/components/admin/AdminAvatarScreen";

export const meta = pageMeta("adminAvatars.title");

type AdminAvatar = AvatarDto & {
  wearers: number;
  assignments: {
    id: string;
    userUuid: string;
    type: string;
    seasonId: number | null;
    createdAt: string;
  }[];
};

const path = (args: { params: { slug?: string } }) =>
  `${MERCH_SERVICE}/avatars/${encodeURIComponent(args.params.slug ?? "")}`;

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const res = await callApi<AdminAvatar>(
    args,
    `${MERCH_SERVICE}/admin/avatars/${encodeURIComponent(args.params.slug ?? "")}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { avatar: res.data, statuses: AVATAR_STATUSES };
}

/** Three forms: `save` (PATCH), `upload` (PUT the art), `delete`. */
export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  if (intent === "delete") {
    const res = await callApi(args, path(args), { method: "DELETE", token });
    if (!res.ok) return data<FormState>({ intent, error: res }, { status: res.status });
    return redirect("/admin/avatars");
  }
  if (intent === "upload") {
    const file = artFile(form);
    if (!file)
      return data<FormState>(
        {
          intent,
          error: { status: 400, message: "file is required: choose an image.", generic: false },
        },
        { status: 400 },
      );
    const body = new FormData();
    body.append("file", file, file.name);
    const res = await callApi(args, `${path(args)}/image`, { method: "PUT", token, body });
    if (!res.ok) return data<FormState>({ intent, error: res }, { status: res.status });
    return { intent, ok: true } satisfies FormState;
  }
  const { json, values, errors } = avatarBody(form, false);
  if (hasErrors(errors))
    return data<FormState>({ intent: "save", fieldErrors: errors, values }, { status: 400 });
  const res = await callApi<AvatarDto>(args, path(args), { method: "PATCH", token, json });
  if (!res.ok)
    return data<FormState>({ intent: "save", error: res, values }, { status: res.status });
  return { intent: "save", ok: true } satisfies FormState;
}

export default function EditAvatar() {
  return <AdminAvatarScreen />;
}

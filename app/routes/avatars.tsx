import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi, userApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { clearSessionCookie, loginRedirect, requireUser } from "~/lib/session.server";
import type { DisplayError } from "~/lib/errors";
import type { User } from "~/lib/types";
import type { AvatarWithAccess } from "~/lib/avatars";
import { AvatarPickerScreen } from "~/components/avatars/AvatarPickerScreen";

export const meta = pageMeta("avatars.title");

/** Every avatar but PRIVATE ones, with whether the caller may wear it (GET /all-avatars). */
export async function loader(args: LoaderFunctionArgs) {
  const { user, token } = await requireUser(args);
  const res = await callApi<AvatarWithAccess[]>(args, "/api/merch-service/all-avatars", { token });
  if (!res.ok) {
    if (res.status === 401)
      throw loginRedirect(args.request, { "Set-Cookie": clearSessionCookie(args.request) });
    throw data({ message: res.generic ? null : res.message }, { status: res.status });
  }
  return { avatars: res.data, current: user.avatarId ?? null };
}

/** Wears an avatar (`avatarId`) or takes it off (empty): POST /users/profile, which checks the rules again. */
export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const avatarId = formString(await args.request.formData(), "avatarId") || null;
  const res = await userApi<User>(args, "/users/profile", {
    method: "POST",
    token,
    json: { avatarId },
  });
  if (!res.ok)
    return data(
      { ok: false as const, error: res as DisplayError, avatarId },
      { status: res.status },
    );
  return { ok: true as const, avatarId: res.data.avatarId ?? null };
}

export default function AvatarPicker() {
  return <AvatarPickerScreen />;
}

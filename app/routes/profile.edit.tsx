import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { checkImage, type ImageKind } from "~/components/profile/ImageUpload";
import { pageMeta, type MessageKey } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { userColor } from "~/lib/format";
import { checkNewPassword, formString, hasErrors, type FormState } from "~/lib/forms";
import { clearSessionCookie, getToken, loginRedirect, startSession } from "~/lib/session.server";
import type { AuthResult, User } from "~/lib/types";
import { EditProfileScreen } from "~/components/profile/EditProfileScreen";

export const meta = pageMeta("edit.title");

type Args = LoaderFunctionArgs | ActionFunctionArgs;

/** The caller's own profile, or a redirect to log in. */
async function ownProfile(args: Args) {
  const token = getToken(args);
  if (!token) throw loginRedirect(args.request);
  const res = await userApi<User>(args, "/users/profile", { token });
  if (!res.ok) {
    if (res.status === 401)
      throw loginRedirect(args.request, { "Set-Cookie": clearSessionCookie(args.request) });
    throw data({ message: res.generic ? null : res.message }, { status: res.status });
  }
  return { token, user: res.data };
}

export async function loader(args: LoaderFunctionArgs) {
  const { user } = await ownProfile(args);
  return { user };
}

/** Three forms post here: `profile` (the details), `password`, and `upload` (pictures, without JavaScript). */
export async function action(args: ActionFunctionArgs) {
  const { token, user } = await ownProfile(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent");

  if (intent === "upload") {
    const kind = formString(form, "kind") as ImageKind;
    const file = form.get("file");
    const problem = checkImage(file instanceof File ? file : null);
    if (problem || !(file instanceof File))
      return data(
        { intent, kind, message: problem?.key ?? ("upload.noFile" as MessageKey) },
        { status: 400 },
      );
    const body = new FormData();
    body.append("kind", kind);
    body.append("file", file, file.name);
    const res = await userApi(args, "/users/images", { method: "POST", token, body });
    if (!res.ok) return data({ intent, kind, error: res }, { status: res.status });
    return { intent, kind, ok: true };
  }

  if (intent === "password") {
    const password = formString(form, "password");
    const newPassword = formString(form, "newPassword");
    const confirm = formString(form, "confirmPassword");
    const fieldErrors = {
      password: password ? undefined : ("validation.passwordRequired" as const),
      newPassword: checkNewPassword(newPassword),
      confirmPassword:
        newPassword && confirm !== newPassword
          ? ("validation.passwordMismatch" as const)
          : undefined,
    };
    if (hasErrors(fieldErrors)) return data<FormState>({ intent, fieldErrors }, { status: 400 });
    const res = await userApi<Partial<AuthResult>>(args, "/users/change-password", {
      method: "POST",
      token,
      json: { password, newPassword },
    });
    if (!res.ok) return data<FormState>({ intent, error: res }, { status: res.status });
    // A password change ends the old sessions; keep this one going with a fresh token.
    let fresh = res.data?.token;
    if (!fresh && user.email) {
      const login = await userApi<AuthResult>(args, "/auth/login", {
        method: "POST",
        json: { email: user.email, password: newPassword },
      });
      if (login.ok) fresh = login.data.token;
    }
    const cookie = fresh ? await startSession(args, fresh) : null;
    return data<FormState>(
      { intent, ok: true },
      { headers: { "Set-Cookie": cookie ?? clearSessionCookie(args.request) } },
    );
  }

  // intent === "profile"
  const nickname = formString(form, "nickname").trim();
  const zodiac = formString(form, "zodiac");
  const values: Record<string, string> = {
    nickname,
    firstName: formString(form, "firstName").trim(),
    lastName: formString(form, "lastName").trim(),
    color: userColor(formString(form, "color")).slice(1),
    pronoun: formString(form, "pronoun").trim(),
    zodiac,
    bio: formString(form, "bio").trim(),
    displayPronouns: form.get("displayPronouns") ? "true" : "",
  };
  if (!nickname)
    return data<FormState>(
      { intent: "profile", fieldErrors: { nickname: "validation.nicknameRequired" }, values },
      { status: 400 },
    );
  const body: Record<string, unknown> = {
    nickname,
    firstName: values.firstName,
    lastName: values.lastName,
    color: values.color,
    pronoun: values.pronoun,
    displayPronouns: !!values.displayPronouns,
    bio: values.bio,
  };
  // "" clears a text field; the sign is an enum, so none is null.
  body.zodiac = zodiac || null;
  const res = await userApi<User>(args, "/users/profile", { method: "POST", token, json: body });
  if (!res.ok)
    return data<FormState>({ intent: "profile", error: res, values }, { status: res.status });
  return redirect("/profile");
}

export default function EditProfile() {
  return <EditProfileScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

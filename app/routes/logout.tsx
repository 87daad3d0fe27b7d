import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { userApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { clearTokenCookie, getToken } from "~/lib/session.server";

/**
 * POST /logout: forget the token and go home. With `intent=everywhere` the account's every
 * session ends on the server first (POST /auth/logout-everywhere), on every device.
 */
export async function action(args: ActionFunctionArgs) {
  const { request } = args;
  const token = getToken(request);
  if (token && formString(await request.formData(), "intent") === "everywhere")
    await userApi(args, "/auth/logout-everywhere", { method: "POST", token });
  return redirect("/", { headers: { "Set-Cookie": clearTokenCookie(request) } });
}

/** A stray GET (a bookmark, a typed URL) changes nothing: logging out takes a POST. */
export async function loader() {
  return redirect("/");
}

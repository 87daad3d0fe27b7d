import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { userApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { clearSessionCookie, getToken } from "~/lib/session.server";

/**
 * POST /logout: end this browser's session on the server (its row goes: the cookie's id
 * stands for nobody, even if a copy of it survives) and go home. With `intent=everywhere`
 * every session of the account ends (POST /auth/logout-everywhere), on every device.
 */
export async function action(args: ActionFunctionArgs) {
  const { request } = args;
  const token = getToken(args);
  if (token) {
    const everywhere = formString(await request.formData(), "intent") === "everywhere";
    await userApi(args, everywhere ? "/auth/logout-everywhere" : "/auth/web-sessions/current", {
      method: everywhere ? "POST" : "DELETE",
      token,
    });
  }
  return redirect("/", { headers: { "Set-Cookie": clearSessionCookie(request) } });
}

/** A stray GET (a bookmark, a typed URL) changes nothing: logging out takes a POST. */
export async function loader() {
  return redirect("/");
}

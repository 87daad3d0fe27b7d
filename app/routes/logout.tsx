import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { clearTokenCookie } from "~/lib/session.server";

/** POST /logout: forget the token and go home. */
export async function action({ request }: ActionFunctionArgs) {
  return redirect("/", { headers: { "Set-Cookie": clearTokenCookie(request) } });
}

/** A stray GET (a bookmark, a typed URL) changes nothing: logging out takes a POST. */
export async function loader() {
  return redirect("/");
}

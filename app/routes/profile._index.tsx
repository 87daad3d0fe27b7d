import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { Eye, Pencil } from "lucide-react";
import { ProfileView } from "~/components/ProfileView";
import { buttonClass } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { clearTokenCookie, getToken, loginRedirect } from "~/lib/session.server";
import type { User } from "~/lib/types";

export const meta = pageMeta("profile.title");

/** The signed-in user's own profile (GET /users/profile). */
export async function loader(args: LoaderFunctionArgs) {
  const token = getToken(args.request);
  if (!token) throw loginRedirect(args.request);
  const res = await userApi<User>(args, "/users/profile", { token });
  if (!res.ok) {
    if (res.status === 401) throw loginRedirect(args.request, { "Set-Cookie": clearTokenCookie(args.request) });
    throw data({ message: res.generic ? null : res.message }, { status: res.status });
  }
  return { user: res.data };
}

export default function Profile() {
  const t = useT();
  const { user } = useLoaderData<typeof loader>();
  return (
    <ProfileView
      profile={user}
      own
      actions={
        <>
          <Link to="/profile/edit" className={buttonClass.primary}>
            <Pencil aria-hidden className="size-4" />
            {t("profile.edit")}
          </Link>
          <Link to={`/profile/${user.uuid}`} className={buttonClass.secondary}>
            <Eye aria-hidden className="size-4" />
            {t("profile.viewPublic")}
          </Link>
        </>
      }
    />
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

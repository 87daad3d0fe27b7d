import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { Eye, Pencil } from "lucide-react";
import { SocialProfile } from "~/components/social/SocialProfile";
import { RankCard } from "~/components/ranking/RankCard";
import { SubmitButton, buttonClass } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { callApi, userApi } from "~/lib/api.server";
import { POINTS_API, type MyStanding } from "~/lib/points";
import { clearSessionCookie, getToken, loginRedirect } from "~/lib/session.server";
import { loadProfileSocial } from "~/lib/social.server";
import type { User } from "~/lib/types";

export const meta = pageMeta("profile.title");

/** The signed-in user's own profile (GET /users/profile). */
export async function loader(args: LoaderFunctionArgs) {
  const token = getToken(args);
  if (!token) throw loginRedirect(args.request);
  const [res, rank] = await Promise.all([
    userApi<User>(args, "/users/profile", { token }),
    callApi<MyStanding>(args, `${POINTS_API}/points/current-ranking-status`, { token }),
  ]);
  if (!res.ok) {
    if (res.status === 401)
      throw loginRedirect(args.request, { "Set-Cookie": clearSessionCookie(args.request) });
    throw data({ message: res.generic ? null : res.message }, { status: res.status });
  }
  // The rank and the graph are extra: if they fail to load, the profile still shows.
  const social = await loadProfileSocial(args, token, res.data.uuid, res.data.uuid);
  return { user: res.data, rank: rank.ok ? rank.data : null, social };
}

export default function Profile() {
  const t = useT();
  const { user, rank, social } = useLoaderData<typeof loader>();
  return (
    <>
      <SocialProfile
        profile={user}
        social={social}
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
      {rank && (
        <div className="mx-auto -mt-4 max-w-5xl px-4 pb-10 sm:-mt-6 sm:px-6">
          <RankCard standing={rank} />
        </div>
      )}
      <div className="mx-auto max-w-5xl px-4 pb-12 sm:px-6">
        <Form
          method="post"
          action="/logout"
          className="flex flex-wrap items-center justify-between gap-3 rounded-2xl border border-line bg-panel/60 px-5 py-4"
        >
          <p className="text-sm text-ink-200">{t("profile.everywhereHint")}</p>
          <SubmitButton
            label="profile.logoutEverywhere"
            pendingLabel="profile.loggingOutEverywhere"
            intent="everywhere"
            variant="secondary"
          />
        </Form>
      </div>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

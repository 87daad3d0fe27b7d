import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { SocialProfile } from "~/components/social/SocialProfile";
import { isLocale, translate } from "~/i18n";
import { userApi } from "~/lib/api.server";
import { getSession } from "~/lib/session.server";
import { loadProfileSocial } from "~/lib/social.server";
import type { PublicProfile } from "~/lib/types";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const root = matches.find((m) => m.id === "root")?.data as { locale?: string } | undefined;
  const locale = isLocale(root?.locale) ? root.locale : "en";
  return [
    {
      title: data
        ? translate(locale, "profile.publicTitle", { name: data.profile.nickname })
        : translate(locale, "errors.notFound.title"),
    },
  ];
};

/**
 * Anyone's public profile, guests included (GET /profile/{uuid}); a signed-in viewer also
 * gets the graph around it (counts, fans, following) and their own relationship to it.
 */
export async function loader(args: LoaderFunctionArgs) {
  const uuid = args.params.uuid ?? "";
  const [res, session] = await Promise.all([
    userApi<PublicProfile>(args, `/profile/${encodeURIComponent(uuid)}`),
    getSession(args),
  ]);
  if (!res.ok) throw data({ message: res.generic ? null : res.message }, { status: res.status });
  const social =
    session.user && session.token
      ? await loadProfileSocial(args, session.token, res.data.uuid, session.user.uuid)
      : null;
  return { profile: res.data, social, own: session.user?.uuid === res.data.uuid };
}

export default function PublicProfilePage() {
  const { profile, social, own } = useLoaderData<typeof loader>();
  return <SocialProfile profile={profile} social={social} own={own} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { ShieldAlert } from "lucide-react";
import { button } from "~/components/ui";
import { SocialProfile } from "~/components/social/SocialProfile";
import { isLocale, translate, useT } from "~/i18n";
import { isModerator } from "~/lib/moderation";
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
  const own = session.user?.uuid === res.data.uuid;
  // Moderators get a way to the account's moderation page (the page checks again).
  return { profile: res.data, social, own, moderate: !own && isModerator(session.roles) };
}

export default function PublicProfilePage() {
  const { profile, social, own, moderate } = useLoaderData<typeof loader>();
  const t = useT();
  return (
    <SocialProfile
      profile={profile}
      social={social}
      own={own}
      actions={
        moderate ? (
          <Link
            to={`/moderation/${profile.uuid}`}
            className={button("secondary", "sm")}
            data-testid="moderate-link"
          >
            <ShieldAlert aria-hidden className="size-4" />
            {t("mod.open")}
          </Link>
        ) : undefined
      }
    />
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ProfileView } from "~/components/profile/ProfileView";
import { isLocale, translate } from "~/i18n";
import { userApi } from "~/lib/api.server";
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

/** Anyone's public profile, guests included (GET /profile/{uuid}). */
export async function loader(args: LoaderFunctionArgs) {
  const uuid = args.params.uuid ?? "";
  const res = await userApi<PublicProfile>(args, `/profile/${encodeURIComponent(uuid)}`);
  if (!res.ok) throw data({ message: res.generic ? null : res.message }, { status: res.status });
  return { profile: res.data };
}

export default function PublicProfilePage() {
  const { profile } = useLoaderData<typeof loader>();
  return <ProfileView profile={profile} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

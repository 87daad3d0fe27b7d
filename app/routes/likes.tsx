import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CrateView } from "~/components/crates/CrateView";
import { pageMeta } from "~/i18n";
import { loadCrateView } from "~/lib/songs.server";

export const meta = pageMeta("likes.title");

export async function loader(args: LoaderFunctionArgs) {
  return loadCrateView(args, "likes");
}

export default function LikesPage() {
  const d = useLoaderData<typeof loader>();
  return (
    <CrateView id="likes" kind="likes" userUuid={d.userUuid} crate={d.crate} songs={d.songs} />
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

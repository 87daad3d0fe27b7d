import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CrateView } from "~/components/crates/CrateView";
import { pageMeta } from "~/i18n";
import { loadCrateView } from "~/lib/songs.server";

export const meta = pageMeta("queue.title");

export async function loader(args: LoaderFunctionArgs) {
  return loadCrateView(args, "queue");
}

export default function QueuePage() {
  const d = useLoaderData<typeof loader>();
  return (
    <CrateView id="queue" kind="queue" userUuid={d.userUuid} crate={d.crate} songs={d.songs} />
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

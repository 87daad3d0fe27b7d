import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { requireUser } from "~/lib/session.server";
import { type CrateDto, type ListPage } from "~/lib/songs";
import { loaded, playlistApi } from "~/lib/songs.server";
import { CratesScreen } from "~/components/crates/CratesScreen";

export const meta = pageMeta("crates.title");

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const get = <R,>(path: string) => playlistApi<R>(args, path, { token }).then(loaded);
  // Streamed: the page (and its skeletons) paint at once, the lists follow.
  return {
    crates: get<ListPage<CrateDto>>("/crate/user?limit=100&offset=0"),
    queue: get<CrateDto>("/crate/queue"),
    likes: get<CrateDto>("/crate/likes"),
  };
}

export default function CratesPage() {
  return <CratesScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";

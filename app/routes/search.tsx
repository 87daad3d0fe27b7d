import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { requireUser } from "~/lib/session.server";
import { loaded, playlistApi, type Loaded } from "~/lib/songs.server";
import { searchQuery, type SearchResult } from "~/lib/songs";
import { readSearchParams } from "~/lib/songs";
import { SearchScreen } from "~/components/songs/SearchScreen";

export const meta = pageMeta("search.title");

/** `?q=` (the words), `provider=` (all, catalogue or one provider), `clean=1` (no explicit songs). */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const params = readSearchParams(new URL(args.request.url));
  // Seed 001: search needs a non-empty query; without one the page invites a search.
  const result: Loaded<SearchResult> | null = params.q
    ? loaded(
        await playlistApi<SearchResult>(
          args,
          `/search?${searchQuery({ q: params.q, provider: params.provider || undefined, explicit: !params.clean })}`,
          {
            token,
          },
        ),
      )
    : null;
  return { ...params, result };
}

export default function SearchPage() {
  return <SearchScreen />;
}

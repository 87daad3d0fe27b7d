import { Hono } from "hono";
import { z } from "zod";
import type { MusicProvider, SongDto } from "../../shared/songs";
import { ADAPTER_KEYS, brandOf, MUSIC_ADAPTERS, type ProviderSong } from "../adapters/music";
import type { AppEnv, Env } from "../env";
import { caller, requireAnyToken, type Caller } from "../lib/auth";
import { fields, valid } from "../lib/validate";
import { SONG_MSG } from "../songs/messages";
import { BY_TRACK_NAME, catalogueSearchWhere, matchesSearch, songPage } from "../songs/search";
import { mergeSearch } from "./search-merge";
import { BudgetSpent, cachedSearch, deadline, LATE, searchBudgetMs } from "./search-budget";

/**
 * GET /search and GET /search/v2: the local catalogue plus every enabled music provider,
 * in the brand's order (search-merge.ts). Paging is per source: each source is asked for
 * `limit` results from `offset`, so a page holds up to `limit` songs from each; the next
 * page is `offset + limit` for all of them (v2 says so in `next`).
 */
export const searchRoutes = new Hono<AppEnv>();

/**
 * A source's state in the answer: not configured (or not asked, or its daily budget is
 * spent), answered, failed, or late (still busy when the search's budget ran out).
 */
export type SourceState = "on" | "off" | "error" | "late";
export const SEARCH_SOURCES = ["local", ...ADAPTER_KEYS] as const;

const query = z.object({
  q: z.string().trim().min(1, SONG_MSG.emptySearch).max(200, "q must be at most 200 characters"),
  explicit: z
    .enum(["true", "false"], { error: "explicit must be true or false" })
    .optional()
    .transform((v) => v !== "false"),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "country must be a 2-letter country code")
    .optional()
    .transform((v) => (v ?? "US").toUpperCase()),
  offset: fields.int(0, 10_000).default(0),
  limit: fields.int(1, 50).default(20),
  providers: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return null;
      const list = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = list.filter((s) => !(SEARCH_SOURCES as readonly string[]).includes(s));
      if (bad.length || !list.length)
        ctx.addIssue({
          code: "custom",
          message: `providers must be a comma list of: ${SEARCH_SOURCES.join(", ")}`,
        });
      return new Set(list);
    }),
});

/**
 * The spec's one rule for a missing query (seed 001: "Search needs a non-empty query")
 * answers with exactly its message, before any other field is looked at.
 */
const searchQuery = z
  .any()
  .superRefine((v, ctx) => {
    const q = (v as { q?: unknown } | null)?.q;
    if (typeof q !== "string" || !q.trim())
      ctx.addIssue({ code: "custom", message: SONG_MSG.emptySearch });
  })
  .pipe(query);
type SearchQuery = z.output<typeof query>;

/**
 * Catalogue songs the caller may see: VERIFIED, and public or their own (the same rule as
 * the upload-service's song search), matched by the FTS5 index.
 */
async function searchLocal(
  env: Env,
  who: Caller,
  p: SearchQuery,
): Promise<{ songs: SongDto[]; total: number }> {
  const match = matchesSearch(p.q);
  if (!match) return { songs: [], total: 0 };
  const page = await songPage(
    env,
    catalogueSearchWhere(match, who.uuid, p.explicit),
    BY_TRACK_NAME,
    p.limit,
    p.offset,
  );
  return { songs: page.data, total: page.total };
}

interface SourceResult {
  state: SourceState;
  songs: ProviderSong[];
  total: number | null;
  /** Whether this source may have more after this page. */
  more: boolean;
}

/**
 * Asks every enabled provider at once, within one total budget (search-budget.ts). A
 * provider that throws or times out is reported "error", one still busy at the deadline
 * "late"; either contributes nothing: one provider's trouble never fails or holds the search.
 */
async function searchProviders(
  env: Env,
  p: SearchQuery,
): Promise<Partial<Record<MusicProvider, SourceResult>>> {
  const budget = deadline(searchBudgetMs(env));
  const none = (state: SourceState): SourceResult => ({
    state,
    songs: [],
    total: null,
    more: false,
  });
  try {
    const entries = await Promise.all(
      MUSIC_ADAPTERS.map(async (a): Promise<[MusicProvider, SourceResult]> => {
        if ((p.providers && !p.providers.has(a.key)) || !a.enabled(env))
          return [a.key, none("off")];
        const work = (async (): Promise<SourceResult> => {
          try {
            const page = await cachedSearch(env, a, {
              q: p.q,
              offset: p.offset,
              limit: p.limit,
              explicit: p.explicit,
              country: p.country,
            });
            const more =
              page.total !== null ? p.offset + p.limit < page.total : page.songs.length >= p.limit;
            // Providers that cannot filter explicit songs themselves are filtered here.
            const list = p.explicit ? page.songs : page.songs.filter((s) => !s.explicit);
            return { state: "on", songs: list, total: page.total, more };
          } catch (err) {
            if (err instanceof BudgetSpent) return none("off");
            console.warn(`search: ${a.name} failed: ${(err as Error)?.message ?? err}`);
            return none("error");
          }
        })();
        const r = await Promise.race([work, budget.late]);
        if (r === LATE) console.warn(`search: ${a.name} was late; answering without it`);
        return [a.key, r === LATE ? none("late") : r];
      }),
    );
    return Object.fromEntries(entries);
  } finally {
    budget.clear();
  }
}

async function runSearch(env: Env, who: Caller, p: SearchQuery) {
  const wantLocal = !p.providers || p.providers.has("local");
  const [local, remote] = await Promise.all([
    wantLocal ? searchLocal(env, who, p) : null,
    searchProviders(env, p),
  ]);
  const pages = Object.fromEntries(Object.entries(remote).map(([k, r]) => [k, r.songs]));
  const providers: Record<string, SourceState> = { local: wantLocal ? "on" : "off" };
  const total: Record<string, number | null> = {};
  if (local) total.local = local.total;
  let more = !!local && p.offset + p.limit < local.total;
  for (const [k, r] of Object.entries(remote)) {
    providers[k] = r.state;
    if (r.state === "on") total[k] = r.total;
    more ||= r.more;
  }
  return {
    songs: mergeSearch(brandOf(env), local?.songs ?? [], pages),
    providers,
    // Some provider was dropped for lateness: asking again may find more.
    partial: Object.values(providers).includes("late"),
    total,
    next: more ? p.offset + p.limit : null,
  };
}

/** v1: `{ songs, providers, partial, offset, limit }`. */
searchRoutes.get("/search", requireAnyToken, valid("query", searchQuery), async (c) => {
  const p = c.req.valid("query");
  const r = await runSearch(c.env, caller(c, ["user", "bot", "guest", "ghost"]), p);
  return c.json({
    songs: r.songs,
    providers: r.providers,
    partial: r.partial,
    offset: p.offset,
    limit: p.limit,
  });
});

/** v2: the same songs, plus `total` per answering source (null: the provider does not say) and `next`. */
searchRoutes.get("/search/v2", requireAnyToken, valid("query", searchQuery), async (c) => {
  const p = c.req.valid("query");
  const r = await runSearch(c.env, caller(c, ["user", "bot", "guest", "ghost"]), p);
  return c.json({
    songs: r.songs,
    providers: r.providers,
    partial: r.partial,
    offset: p.offset,
    limit: p.limit,
    total: r.total,
    next: r.next,
  });
});

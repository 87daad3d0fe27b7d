import type { Env } from "../env";
import { ProviderError, providerJson } from "./music/http";

/**
 * The music-analysis provider (seed 001: "a music analysis GraphQL API"), reached only by
 * the analysis queue's consumer (workers/queues/song-analysis.ts), never by a request.
 *
 * On when ANALYSIS_API_URL (its GraphQL endpoint) and ANALYSIS_API_KEY (a bearer token) are
 * both set; off, similar tracks answer from our own data alone (workers/similar/local.ts).
 *
 * The contract (a Spotify track is the unit the provider analyses):
 * - query `spotifyTrack(id) { similarTracks(first) }` answers the similar tracks' Spotify
 *   ids, or an error whose `code` is "trackNotAnalyzed" while the provider has not
 *   analysed the track yet;
 * - mutation `spotifyTrackEnqueue(input: { spotifyTrackId })` asks it to analyse one.
 * Tests stub it at the fetch boundary (test/similar-analysis.test.ts).
 */
export const SIMILAR_QUERY = `query SimilarTracks($id: ID!, $first: Int!) {
  spotifyTrack(id: $id) {
    __typename
    ... on SpotifyTrack {
      id
      similarTracks(first: $first) {
        __typename
        ... on SimilarTracksConnection { edges { node { id } } }
        ... on SimilarTracksError { code message }
      }
    }
    ... on SpotifyTrackError { code message }
  }
}`;

export const ENQUEUE_MUTATION = `mutation SpotifyTrackEnqueue($id: ID!) {
  spotifyTrackEnqueue(input: { spotifyTrackId: $id }) {
    __typename
    ... on SpotifyTrackEnqueueSuccess { enqueuedSpotifyTrack { id } }
    ... on SpotifyTrackEnqueueError { code message }
  }
}`;

/** What the provider said: similar ids, or the error code it gave instead. */
export interface SimilarResult {
  ids: string[];
  code: string | null;
}

export interface AnalysisAdapter {
  similar(spotifyId: string, first: number): Promise<SimilarResult>;
  enqueue(spotifyId: string): Promise<{ code: string | null }>;
}

const PROVIDER = "analysis";
/** Spotify ids are 22 base-62 characters; anything else the provider sends is dropped. */
const SPOTIFY_ID = /^[0-9A-Za-z]{1,64}$/;

type Gql = { data?: Record<string, unknown> | null; errors?: { message?: string }[] };

export function analysisAdapter(env: Env): AnalysisAdapter | null {
  const url = env.ANALYSIS_API_URL;
  const key = env.ANALYSIS_API_KEY;
  if (!url || !key) return null;

  const call = async (query: string, variables: Record<string, unknown>): Promise<Gql> => {
    const body = (await providerJson(PROVIDER, url, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query, variables }),
    })) as Gql | null;
    if (!body) throw new ProviderError(PROVIDER, 404, "GraphQL endpoint not found");
    // A GraphQL-level error (bad query, auth) without data: a failure to retry, not an answer.
    if (!body.data && body.errors?.length)
      throw new ProviderError(PROVIDER, 200, body.errors[0]?.message ?? "GraphQL error");
    return body;
  };

  return {
    async similar(spotifyId, first) {
      const body = await call(SIMILAR_QUERY, { id: spotifyId, first });
      const track = body.data?.spotifyTrack as
        | {
            code?: unknown;
            similarTracks?: { code?: unknown; edges?: { node?: { id?: unknown } }[] };
          }
        | null
        | undefined;
      if (!track) throw new ProviderError(PROVIDER, 200, "answer without spotifyTrack");
      const code = typeof track.code === "string" ? track.code : null;
      if (code) return { ids: [], code };
      const st = track.similarTracks;
      if (st && typeof st.code === "string") return { ids: [], code: st.code };
      const ids = (st?.edges ?? [])
        .map((e) => e?.node?.id)
        .filter((id): id is string => typeof id === "string" && SPOTIFY_ID.test(id));
      return { ids: [...new Set(ids)].slice(0, first), code: null };
    },
    async enqueue(spotifyId) {
      const body = await call(ENQUEUE_MUTATION, { id: spotifyId });
      const r = body.data?.spotifyTrackEnqueue as { code?: unknown } | null | undefined;
      return { code: r && typeof r.code === "string" ? r.code : null };
    },
  };
}

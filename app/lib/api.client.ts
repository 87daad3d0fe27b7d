import type { SimilarAnswer } from "../../shared/similar";
import { ApiError, displayError } from "./errors";
import {
  CRATE_PAGE,
  PLAYLIST_SERVICE,
  UPLOAD_SERVICE,
  searchQuery,
  type SearchParams,
  type CrateDto,
  type CrateSongDto,
  type ListPage,
  type ProviderSong,
  type SearchResult,
  type SongDto,
  type UploadDto,
} from "./songs";

/**
 * Calls the API straight from the browser. It sends no token: the same-origin request carries
 * the HttpOnly session cookie, which the gateway honours from our own pages only
 * (workers/lib/web-sessions.ts). Sends JSON, and turns a failure into an `ApiError` whose
 * `display` is the spec's message (spec 001, section 8) via errors.ts.
 *
 * A `.client` module: the server bundle gets none of this. Components reach it through
 * `useSongsClient()` (useSongsClient.ts) and call it from effects and event handlers only.
 */
export interface RefillChoice {
  crateUuid: string | null;
  crateName: string | null;
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  signal?: AbortSignal;
  /** Told the status of a successful answer (201 created vs 200 already there). */
  onStatus?: (status: number) => void;
}

export async function apiRequest<R>(path: string, opts: RequestOptions = {}): Promise<R> {
  const headers = new Headers({ Accept: "application/json" });
  let body = opts.body;
  if (opts.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(opts.json);
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
      signal: opts.signal,
    });
  } catch (err) {
    if ((err as Error)?.name === "AbortError") throw err;
    // Offline or the connection dropped: status 0, the generic message.
    throw new ApiError({ status: 0, message: "", generic: true });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (res.ok) throw new ApiError(displayError(502, null));
    }
  }
  if (!res.ok) throw new ApiError(displayError(res.status, parsed));
  opts.onStatus?.(res.status);
  return parsed as R;
}

/** The song and crate calls (the caller is whoever the session cookie says). */
export function songsClient() {
  const call = apiRequest;
  const P = PLAYLIST_SERVICE;
  const U = UPLOAD_SERVICE;
  const crate = (id: string) => encodeURIComponent(id);
  return {
    search: (p: SearchParams, signal?: AbortSignal) =>
      call<SearchResult>(`${P}/search?${searchQuery(p)}`, { signal }),
    importTrack: (song: ProviderSong) =>
      call<{ song: SongDto; created: boolean }>(`${P}/api/v1/track-import`, {
        method: "POST",
        json: { song },
      }),
    genres: (prefix: string, signal?: AbortSignal) =>
      call<unknown>(`${P}/api/v1/genres?${new URLSearchParams({ prefix, limit: "1024" })}`, {
        signal,
      }).then(genreNames),

    crates: (limit = 100, offset = 0) =>
      call<ListPage<CrateDto>>(`${P}/crate/user?limit=${limit}&offset=${offset}`),
    crate: (id: string) => call<CrateDto>(`${P}/crate/${crate(id)}`),
    createCrate: (crateName?: string) =>
      call<CrateDto>(`${P}/crate`, { method: "POST", json: crateName ? { crateName } : {} }),
    renameCrate: (id: string, crateName: string) =>
      call<CrateDto>(`${P}/crate/${crate(id)}`, { method: "PATCH", json: { crateName } }),
    deleteCrate: (id: string) => call<unknown>(`${P}/crate/${crate(id)}`, { method: "DELETE" }),
    copyCrate: (id: string, crateName?: string) =>
      call<CrateDto>(`${P}/crate/${crate(id)}/copy`, {
        method: "PUT",
        json: crateName ? { crateName } : {},
      }),
    crateSongs: (id: string, offset = 0, limit = CRATE_PAGE) =>
      call<ListPage<CrateSongDto>>(
        `${P}/crate/${crate(id)}/songs?limit=${Math.min(100, limit)}&offset=${offset}`,
      ),
    addSong: (id: string, songId: string) =>
      call<CrateSongDto>(`${P}/crate/${crate(id)}/songs`, {
        method: "POST",
        json: { songId, append: true },
      }),
    /** Appends a song to the queue unless it holds it already; `added` false means it did. */
    queueSong: async (songId: string) => {
      let status = 0;
      const song = await call<CrateSongDto>(`${P}/crate/queue/songs`, {
        method: "POST",
        json: { songId, append: true, once: true },
        onStatus: (s) => (status = s),
      });
      return { song, added: status === 201 };
    },
    /** The crate the queue refills from when it runs out (issue 20), or nulls. */
    refill: () => call<RefillChoice>(`${P}/crate/queue/refill`),
    setRefill: (crateUuid: string | null) =>
      crateUuid
        ? call<RefillChoice>(`${P}/crate/queue/refill`, { method: "PUT", json: { crateUuid } })
        : call<unknown>(`${P}/crate/queue/refill`, { method: "DELETE" }).then((): RefillChoice => ({
            crateUuid: null,
            crateName: null,
          })),
    removeSongs: (id: string, crateSongUuids: string[]) =>
      call<{ removed: number }>(`${P}/crate/${crate(id)}/songs`, {
        method: "DELETE",
        json: { crateSongUuids },
      }),
    moveSong: (id: string, crateSongUuid: string, newPosition: number) =>
      call<{ data: CrateSongDto[] }>(
        `${P}/crate/${crate(id)}/songs/${encodeURIComponent(crateSongUuid)}/position`,
        { method: "PUT", json: { newPosition } },
      ),
    shuffle: (id: string) => call<CrateDto>(`${P}/crate/${crate(id)}/shuffle`, { method: "POST" }),
    /** Similar tracks for the seeds (issue 18), leaving out what the caller has queued. */
    similar: (songIds: string[], limit: number, signal?: AbortSignal) =>
      call<SimilarAnswer>(
        `${P}/similar-tracks?${new URLSearchParams({ songIds: songIds.join(","), limit: String(limit), excludeQueue: "true" })}`,
        { signal },
      ),
    clear: (special: "queue" | "likes") =>
      call<unknown>(`${P}/crate/${special}/clear`, { method: "DELETE" }),

    song: (songId: string) => call<UploadDto>(`${U}/songs/${encodeURIComponent(songId)}`),
    deleteSong: (songId: string) =>
      call<{ songId: string; deleted: boolean }>(`${U}/songs/${encodeURIComponent(songId)}`, {
        method: "DELETE",
      }),
    mySongs: (offset = 0, limit = CRATE_PAGE) =>
      call<ListPage<UploadDto>>(`${U}/songs?limit=${limit}&offset=${offset}`),
    metadata: (body: {
      songId: string;
      trackName?: string;
      artistName?: string;
      albumName?: string;
      genre?: string;
    }) => call<UploadDto>(`${U}/metadata`, { method: "POST", json: body }),
  };
}
export type SongsClient = ReturnType<typeof songsClient>;

/** Genre names from whichever list shape the genres call answers with. */
function genreNames(body: unknown): string[] {
  const list = Array.isArray(body)
    ? body
    : Array.isArray((body as { data?: unknown })?.data)
      ? (body as { data: unknown[] }).data
      : [];
  return list
    .map((g) =>
      typeof g === "string"
        ? g
        : typeof (g as { name?: unknown })?.name === "string"
          ? (g as { name: string }).name
          : null,
    )
    .filter((g): g is string => !!g);
}

export interface UploadHandle {
  promise: Promise<UploadDto>;
  abort: () => void;
}

/**
 * Uploads a song with XMLHttpRequest, so there is real progress to show (fetch has none
 * for request bodies). Resolves with the new song; rejects with an ApiError.
 */
export function uploadSong(form: FormData, onProgress: (percent: number) => void): UploadHandle {
  const req = new XMLHttpRequest();
  const promise = new Promise<UploadDto>((resolve, reject) => {
    req.open("POST", `${UPLOAD_SERVICE}/upload/song`);
    req.setRequestHeader("Accept", "application/json");
    req.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.min(100, Math.round((e.loaded / e.total) * 100)));
    };
    req.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(req.responseText);
      } catch {
        /* not JSON: a failure below */
      }
      const ok =
        req.status >= 200 &&
        req.status < 300 &&
        parsed &&
        typeof (parsed as { songId?: unknown }).songId === "string";
      if (ok) resolve(parsed as UploadDto);
      else
        reject(
          new ApiError(
            displayError(req.status >= 200 && req.status < 300 ? 502 : req.status, parsed),
          ),
        );
    };
    req.onerror = () => reject(new ApiError({ status: 0, message: "", generic: true }));
    req.onabort = () => reject(new DOMException("aborted", "AbortError"));
    req.send(form);
  });
  return { promise, abort: () => req.abort() };
}

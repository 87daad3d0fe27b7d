import { useEffect, useState } from "react";
import { isAbort } from "~/lib/errors";
import { useSongsClient } from "./useSongsClient";
import { SEARCH_DEBOUNCE_MS } from "~/lib/songs";

/** Genre lists by prefix, kept 5 minutes (seed 001: genres debounced 300 ms, cached 5 min). */
const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { at: number; names: string[] }>();

/** Genre names starting with `prefix`, looked up 300 ms after the last change. */
export function useGenres(prefix: string): string[] {
  const client = useSongsClient();
  const key = prefix.trim().toLowerCase();
  const [names, setNames] = useState<string[]>(() => cache.get(key)?.names ?? []);
  useEffect(() => {
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) {
      setNames(hit.names);
      return;
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      client
        .genres(key, ctrl.signal)
        .then((list) => {
          cache.set(key, { at: Date.now(), names: list });
          setNames(list);
        })
        .catch((err) => {
          // Suggestions are a nicety: a failure leaves the field as a plain input.
          if (!isAbort(err)) setNames([]);
        });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [client, key]);
  return names;
}

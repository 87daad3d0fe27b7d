import { useMemo } from "react";
import { songsClient, type SongsClient } from "~/lib/api.client";

/**
 * The song and crate calls for the signed-in user (the session cookie says who). The client
 * module exists only in the browser, so each call looks it up when made: rendering on the
 * server never touches it, and handlers and effects only run in the browser.
 */
export function useSongsClient(): SongsClient {
  return useMemo(
    () =>
      new Proxy({} as SongsClient, {
        get:
          (_, key: string) =>
          (...args: unknown[]) =>
            (songsClient() as unknown as Record<string, (...a: unknown[]) => unknown>)[key](
              ...args,
            ),
      }),
    [],
  );
}

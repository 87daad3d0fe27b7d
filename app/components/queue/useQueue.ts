import { useCallback, useEffect, useState } from "react";
import { QUEUE_CHANGED } from "~/components/songs/SongActions";
import { useSongsClient } from "~/hooks/useSongsClient";
import type { CrateSongDto } from "~/lib/songs";

/** The queue's first page: more than anyone reorders by hand in a drawer. */
const PAGE = 100;

/**
 * The user's queue as the drawer shows it: loaded while `active`, and again whenever a song
 * is added anywhere on the page (SongActions' QUEUE_CHANGED) or the drawer changes it.
 */
export function useQueue(active: boolean) {
  const client = useSongsClient();
  const [songs, setSongs] = useState<CrateSongDto[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<unknown>(null);

  const reload = useCallback(async () => {
    try {
      const page = await client.crateSongs("queue", 0, PAGE);
      setSongs(page.data);
      setTotal(page.total);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client]);

  useEffect(() => {
    if (!active) return;
    void reload();
    const on = () => void reload();
    window.addEventListener(QUEUE_CHANGED, on);
    return () => window.removeEventListener(QUEUE_CHANGED, on);
  }, [active, reload]);

  return { songs, total, error, reload, setSongs };
}

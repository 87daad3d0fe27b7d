import { Loader2, Search } from "lucide-react";
import { useRef, useState } from "react";
import { AddToQueueButton } from "~/components/songs/SongActions";
import { SongRow } from "~/components/songs/SongRow";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { songKey, type AnySong } from "~/lib/songs";

/** Search inside the room's queue drawer: each hit has "Add to queue"; nothing leaves the room. */
export function QueueSearch() {
  const t = useT();
  const client = useSongsClient();
  const [q, setQ] = useState("");
  const [hits, setHits] = useState<AnySong[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const [asked, setAsked] = useState("");

  async function run(e: React.FormEvent) {
    e.preventDefault();
    const words = q.trim();
    if (!words) return;
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setBusy(true);
    setError(null);
    try {
      const r = await client.search({ q: words }, ctl.signal);
      setHits(r.songs);
      setAsked(words);
    } catch (err) {
      if ((err as Error)?.name !== "AbortError") setError(errorText(err, t));
    }
    if (abort.current === ctl) setBusy(false);
  }

  return (
    <section aria-label={t("queue.searchLabel")}>
      <form role="search" className="flex gap-2" onSubmit={run}>
        <label className="sr-only" htmlFor="queue-search-input">
          {t("queue.searchLabel")}
        </label>
        <input
          id="queue-search-input"
          type="search"
          value={q}
          maxLength={200}
          onChange={(e) => setQ(e.target.value)}
          placeholder={t("queue.searchPlaceholder")}
          className="block min-w-0 flex-1 rounded-full border border-line bg-ink-900 px-4 py-2 text-sm text-ink-50 placeholder:text-ink-300"
          data-testid="queue-search-input"
        />
        <button
          type="submit"
          className="inline-flex items-center gap-1.5 rounded-full bg-brand px-4 py-2 text-sm font-semibold text-white hover:bg-brand-hover"
          data-testid="queue-search-submit"
        >
          {busy ? (
            <Loader2 aria-hidden className="size-4 animate-spin" />
          ) : (
            <Search aria-hidden className="size-4" />
          )}
          {t("queue.search")}
        </button>
      </form>
      {error && (
        <p role="alert" className="mt-2 text-sm text-danger">
          {error}
        </p>
      )}
      {hits && hits.length === 0 && (
        <p className="mt-3 text-sm text-ink-200">{t("queue.noResults", { q: asked })}</p>
      )}
      {hits && hits.length > 0 && (
        <ul className="mt-2 space-y-1" data-testid="queue-search-results">
          {hits.map((s, i) => (
            <li key={songKey(s, i)}>
              <SongRow song={s} actions={<AddToQueueButton song={s} compact />} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

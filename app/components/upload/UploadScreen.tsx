import { Await, useRevalidator } from "@remix-run/react";
import { Suspense, useCallback, useEffect, useState } from "react";
import { SongRowSkeleton } from "~/components/songs/SongRow";
import { LoadError, PageTitle } from "~/components/ui";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import type { ListPage, UploadDto } from "~/lib/songs";
import type { Loaded } from "~/lib/songs.server";
import { MyUploads } from "./MyUploads";
import { POLL_MS, shouldPoll } from "./status";
import { UploadForm } from "./UploadForm";
import { UploadStatus } from "./UploadStatus";

/** Upload a song, follow its check, and list "My uploads" (streamed by the route). */
export function UploadScreen({ uploads }: { uploads: Promise<Loaded<ListPage<UploadDto>>> }) {
  const t = useT();
  const revalidator = useRevalidator();
  const client = useSongsClient();
  // Songs seen on this page, newest version by id; `added` lists this visit's uploads, newest first.
  const [songs, setSongs] = useState<Record<string, UploadDto>>({});
  const [added, setAdded] = useState<string[]>([]);
  const [current, setCurrent] = useState<string | null>(null);

  const upsert = useCallback((s: UploadDto) => setSongs((m) => ({ ...m, [s.songId]: s })), []);
  const track = useCallback(
    (list: UploadDto[]) =>
      setSongs((m) => ({ ...Object.fromEntries(list.map((s) => [s.songId, s])), ...m })),
    [],
  );

  const remove = useCallback((songId: string) => {
    setSongs((m) => {
      const { [songId]: _gone, ...rest } = m;
      return rest;
    });
    setAdded((a) => a.filter((x) => x !== songId));
    setCurrent((c) => (c === songId ? null : c));
  }, []);

  // One poller for every song still being checked: every 5 s until its status changes, or
  // until it has waited past the service's bound (then the page says so and stops).
  const pendingIds = Object.values(songs)
    .filter((s) => shouldPoll(s))
    .map((s) => s.songId)
    .sort()
    .join(",");
  useEffect(() => {
    if (!pendingIds) return;
    const timer = setInterval(() => {
      for (const id of pendingIds.split(",")) client.song(id).then(upsert, () => {});
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [pendingIds, client, upsert]);

  const currentSong = current ? songs[current] : null;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <PageTitle>{t("songUpload.heading")}</PageTitle>
      <p className="mt-2 text-ink-200">{t("songUpload.lede")}</p>

      {currentSong ? (
        <UploadStatus
          song={currentSong}
          onChange={upsert}
          onAnother={() => setCurrent(null)}
          onDeleted={remove}
        />
      ) : (
        <UploadForm
          onUploaded={(s) => {
            upsert(s);
            setAdded((a) => [s.songId, ...a.filter((x) => x !== s.songId)]);
            setCurrent(s.songId);
          }}
        />
      )}

      <section aria-labelledby="my-uploads" className="mt-12">
        <h2 id="my-uploads" className="text-xl font-bold text-white">
          {t("songUpload.mine")}
        </h2>
        <div className="mt-4">
          <Suspense fallback={<SongRowSkeleton rows={4} />}>
            <Await resolve={uploads}>
              {(res) =>
                res.ok ? (
                  <MyUploads
                    initial={res.data.data}
                    songs={songs}
                    added={added}
                    track={track}
                    onChange={upsert}
                    onDeleted={remove}
                  />
                ) : (
                  <LoadError error={res} onRetry={() => revalidator.revalidate()} />
                )
              }
            </Await>
          </Suspense>
        </div>
      </section>
    </div>
  );
}

import { Await, Link, useRevalidator } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { Suspense, useEffect, useState } from "react";
import { useT } from "~/i18n";
import { useSongsClient } from "~/hooks/useSongsClient";
import { IMPORT_REFRESH_MS, type CrateDto, type CrateSongDto, type ListPage } from "~/lib/songs";
import type { Loaded } from "~/lib/songs.server";
import { SongRowSkeleton } from "~/components/songs/SongRow";
import { button, LoadError } from "~/components/ui";
import type { CrateKind } from "./kind";
import { CrateHeader } from "./CrateHeader";
import { CrateSongList } from "./CrateSongList";

interface Props {
  /** The crate's uuid, or "queue" / "likes" (the special crates' paths). */
  id: string;
  kind: CrateKind;
  userUuid: string;
  crate: Loaded<CrateDto>;
  songs: Promise<Loaded<ListPage<CrateSongDto>>>;
}

/**
 * A crate, the queue or the likes: header with name, count and import status (refreshed
 * every 5 s while importing), then the songs 50 at a time, reorderable by drag or keyboard.
 */
export function CrateView({ id, kind, userUuid, crate: first, songs }: Props) {
  const t = useT();
  const client = useSongsClient();
  const revalidator = useRevalidator();
  const [crate, setCrate] = useState<CrateDto | null>(first.ok ? first.data : null);
  const [total, setTotal] = useState<number | null>(first.ok ? first.data.crateSongsNumber : null);
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    setCrate(first.ok ? first.data : null);
    if (first.ok) setTotal(first.data.crateSongsNumber);
  }, [first]);

  // Seed 001: while the import is in progress, refresh the crate every 5 s until it is done.
  const importing = crate?.importStatus === "IN_PROGRESS";
  useEffect(() => {
    if (!importing) return;
    const timer = setInterval(async () => {
      try {
        const next = await client.crate(id);
        setCrate(next);
        setTotal(next.crateSongsNumber);
        setRefresh((r) => r + 1);
      } catch {
        /* try again on the next tick */
      }
    }, IMPORT_REFRESH_MS);
    return () => clearInterval(timer);
  }, [importing, client, id]);

  const canEdit = kind !== "crate" || crate?.userUuid === userUuid;
  const name =
    kind === "queue"
      ? t("queue.heading")
      : kind === "likes"
        ? t("likes.heading")
        : (crate?.crateName ?? "");
  const eyebrow =
    kind === "queue"
      ? t("queue.eyebrow")
      : kind === "likes"
        ? t("likes.eyebrow")
        : t("crate.eyebrow");

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      {kind === "crate" && (
        <Link to="/crates" className={`${button("ghost")} -ml-3 mb-2 text-sm`}>
          <ArrowLeft aria-hidden className="size-4" />
          {t("crate.back")}
        </Link>
      )}
      {!first.ok ? (
        <LoadError error={first} onRetry={() => revalidator.revalidate()} />
      ) : (
        <Suspense
          fallback={
            <>
              <CrateHeader
                kind={kind}
                name={name}
                eyebrow={eyebrow}
                crate={crate}
                total={total}
                importing={importing}
              />
              <div className="mt-8">
                <SongRowSkeleton rows={5} />
              </div>
            </>
          }
        >
          <Await resolve={songs}>
            {(res) => (
              <CrateSongList
                key={id}
                id={id}
                kind={kind}
                canEdit={canEdit}
                first={res}
                refresh={refresh}
                total={total}
                onTotal={setTotal}
                header={(actions, cover) => (
                  <CrateHeader
                    kind={kind}
                    name={name}
                    eyebrow={eyebrow}
                    crate={crate}
                    total={total}
                    importing={importing}
                    actions={actions}
                    cover={cover}
                  />
                )}
              />
            )}
          </Await>
        </Suspense>
      )}
    </div>
  );
}

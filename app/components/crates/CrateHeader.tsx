import { Heart, ListMusic, Loader2 } from "lucide-react";
import { type ReactNode } from "react";
import { plural, useT } from "~/i18n";
import { artworkUrl, type CrateDto, type CrateSongDto } from "~/lib/songs";
import { Artwork, GradientTile } from "~/components/songs/Artwork";
import { Tag } from "~/components/songs/SongRow";
import type { CrateKind } from "./kind";
import { PageTitle } from "~/components/ui";

/** The crate's header: cover, name, count, import status and the actions. */
export function CrateHeader({
  kind,
  name,
  eyebrow,
  crate,
  total,
  importing,
  actions,
  cover,
}: {
  kind: CrateKind;
  name: string;
  eyebrow: string;
  crate: CrateDto | null;
  total: number | null;
  importing: boolean;
  actions?: ReactNode;
  cover?: CrateSongDto;
}) {
  const t = useT();
  const Icon = kind === "queue" ? ListMusic : kind === "likes" ? Heart : null;
  return (
    <header className="flex flex-col gap-5 sm:flex-row sm:items-end">
      <div className="relative shrink-0 self-start">
        {cover && artworkUrl(cover) ? (
          <Artwork
            song={cover}
            size={128}
            rounded="rounded-2xl"
            className="shadow-2xl shadow-brand/30"
          />
        ) : (
          <GradientTile
            seed={kind === "crate" ? name + (crate?.crateUuid ?? "") : kind}
            hue={kind === "queue" ? 255 : kind === "likes" ? 325 : undefined}
            size={128}
            rounded="rounded-2xl"
            className="shadow-2xl shadow-brand/30"
          />
        )}
        {Icon && (
          <span className="absolute -bottom-2 -right-2 grid size-10 place-items-center rounded-full bg-ink-950 text-neon ring-2 ring-white/15">
            <Icon aria-hidden className="size-5" />
          </span>
        )}
      </div>
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold uppercase tracking-widest text-brand-light">
          {eyebrow}
        </p>
        <PageTitle className="mt-1 break-words" data-testid="crate-heading">
          {name}
        </PageTitle>
        <div className="mt-2 flex flex-wrap items-center gap-2 text-ink-200">
          <span data-testid="crate-count">
            {total === null ? "–" : plural(t, "crate.songCount", total)}
          </span>
          {importing && (
            <Tag tone="warning">
              <Loader2 aria-hidden className="size-3 animate-spin" />
              <span role="status">{t("crate.importing")}</span>
            </Tag>
          )}
          {crate?.importStatus === "FAILED" && <Tag tone="danger">{t("crate.importFailed")}</Tag>}
          {crate?.importStatus === "COMPLETE" && (
            <Tag tone="success">{t("crate.importComplete")}</Tag>
          )}
        </div>
        {crate?.description && <p className="mt-2 text-ink-200">{crate.description}</p>}
        {actions && <div className="mt-4 flex flex-wrap gap-2">{actions}</div>}
      </div>
    </header>
  );
}

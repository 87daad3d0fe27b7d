import { Link } from "@remix-run/react";
import { Copy, Library, Loader2, Pencil, Plus, Trash2 } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { GradientTile } from "~/components/songs/Artwork";
import { ConfirmDialog } from "~/components/Dialog";
import { EmptyState, Tag } from "~/components/songs/SongRow";
import { useToast } from "~/components/Toaster";
import { IconButton, button } from "~/components/ui";
import { plural, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import { setMyCrates } from "~/lib/crate-cache";
import { IMPORT_REFRESH_MS, type CrateDto } from "~/lib/songs";
import { RenameField } from "./RenameField";

/** A crate in the list; `pending` marks a placeholder shown until the service answers. */
export type Row = CrateDto & { pending?: boolean };

/**
 * The user's crates with create, rename, copy and delete. Every edit shows at once and is
 * undone, with the server's message in a toast, if the server refuses (seed 001, Optimistic edits).
 */
export function CrateList({ initial }: { initial: CrateDto[] }) {
  const t = useT();
  const client = useSongsClient();
  const toast = useToast();
  const [crates, setCrates] = useState<Row[]>(initial);
  const [name, setName] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const tmp = useRef(0);

  useEffect(() => setCrates(initial), [initial]);
  // Seed 001: crates being imported are refreshed every 5 s until the import is done.
  const importing = crates.some((c) => c.importStatus === "IN_PROGRESS");
  useEffect(() => {
    if (!importing) return;
    const timer = setInterval(async () => {
      try {
        const page = await client.crates(100, 0);
        const fresh = new Map(page.data.map((c) => [c.crateUuid, c]));
        setCrates((cs) => cs.map((c) => (c.pending ? c : (fresh.get(c.crateUuid) ?? c))));
      } catch {
        /* the next tick tries again */
      }
    }, IMPORT_REFRESH_MS);
    return () => clearInterval(timer);
  }, [importing, client]);
  // Keep the "Add to crate" menus in step.
  useEffect(() => setMyCrates(crates.filter((c) => !c.pending)), [crates]);

  const placeholder = (crateName: string, from?: Row): Row =>
    ({
      ...(from ?? ({} as CrateDto)),
      crateUuid: `pending-${++tmp.current}`,
      crateName,
      crateSongsNumber: from?.crateSongsNumber ?? 0,
      count: from?.count ?? 0,
      crateType: null,
      importStatus: null,
      pending: true,
    }) as Row;

  async function create(e: FormEvent) {
    e.preventDefault();
    const wanted = name.trim();
    if (!wanted) return;
    const temp = placeholder(wanted || t("crates.naming"));
    setCrates((cs) => [temp, ...cs]);
    setName("");
    try {
      const made = await client.createCrate(wanted || undefined);
      setCrates((cs) => cs.map((c) => (c.crateUuid === temp.crateUuid ? made : c)));
      toast.success(t("crates.created", { name: made.crateName }));
    } catch (err) {
      setCrates((cs) => cs.filter((c) => c.crateUuid !== temp.crateUuid));
      setName(wanted);
      toast.error(errorText(err, t));
    }
  }

  async function rename(crate: Row, next: string) {
    setEditing(null);
    const wanted = next.trim();
    if (!wanted || wanted === crate.crateName) return;
    setCrates((cs) =>
      cs.map((c) => (c.crateUuid === crate.crateUuid ? { ...c, crateName: wanted } : c)),
    );
    try {
      const saved = await client.renameCrate(crate.crateUuid, wanted);
      setCrates((cs) => cs.map((c) => (c.crateUuid === crate.crateUuid ? { ...c, ...saved } : c)));
    } catch (err) {
      setCrates((cs) =>
        cs.map((c) => (c.crateUuid === crate.crateUuid ? { ...c, crateName: crate.crateName } : c)),
      );
      toast.error(
        t("crates.renameFailed", { message: errorText(err, t) }),
        () => void rename(crate, wanted),
      );
    }
  }

  async function copy(crate: Row) {
    const temp = placeholder(t("crates.copyOf", { name: crate.crateName }), crate);
    setCrates((cs) => {
      const i = cs.findIndex((c) => c.crateUuid === crate.crateUuid);
      return [...cs.slice(0, i + 1), temp, ...cs.slice(i + 1)];
    });
    try {
      const made = await client.copyCrate(crate.crateUuid);
      setCrates((cs) => cs.map((c) => (c.crateUuid === temp.crateUuid ? made : c)));
      toast.success(t("crates.copied", { name: made.crateName }));
    } catch (err) {
      setCrates((cs) => cs.filter((c) => c.crateUuid !== temp.crateUuid));
      toast.error(errorText(err, t), () => void copy(crate));
    }
  }

  async function remove(crate: Row) {
    const before = crates;
    setCrates((cs) => cs.filter((c) => c.crateUuid !== crate.crateUuid));
    try {
      await client.deleteCrate(crate.crateUuid);
      toast.success(t("crates.deleted", { name: crate.crateName }));
    } catch (err) {
      // Put it back where it was.
      setCrates((cs) => {
        const i = before.findIndex((c) => c.crateUuid === crate.crateUuid);
        const next = cs.filter((c) => c.crateUuid !== crate.crateUuid);
        next.splice(Math.min(i, next.length), 0, crate);
        return next;
      });
      toast.error(
        t("crates.deleteFailed", { message: errorText(err, t) }),
        () => void remove(crate),
      );
    }
  }

  return (
    <section aria-labelledby="my-crates" className="mt-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id="my-crates" className="text-xl font-bold text-white">
          {t("crates.mine")}{" "}
          <span className="text-base font-medium text-ink-300">({crates.length})</span>
        </h2>
      </div>
      <form onSubmit={create} className="mt-4 flex flex-col gap-2 sm:flex-row">
        <label htmlFor="new-crate" className="sr-only">
          {t("crates.newName")}
        </label>
        <input
          id="new-crate"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={t("crates.newPlaceholder")}
          maxLength={100}
          // A crate is named when it is made (issue 20), not left as "New Playlist #1".
          required
          data-testid="new-crate-name"
          className="block min-w-0 flex-1 rounded-full border border-line bg-ink-900/70 px-4 py-2.5 text-ink-50 placeholder:text-ink-300 transition hover:border-white/30 focus:border-brand-light"
        />
        <button type="submit" className={button("primary", "md")} data-testid="create-crate">
          <Plus aria-hidden className="size-4" />
          <span>{t("crates.create")}</span>
        </button>
      </form>

      {crates.length === 0 ? (
        <div className="mt-6">
          <EmptyState
            icon={<Library aria-hidden className="size-7" />}
            title={t("crates.emptyTitle")}
            body={t("crates.emptyBody")}
          >
            <Link to="/search" className={button("secondary", "sm")}>
              {t("nav.search")}
            </Link>
          </EmptyState>
        </div>
      ) : (
        <ul className="mt-6 space-y-2" data-testid="crate-list">
          {crates.map((c) => (
            <li key={c.crateUuid} data-testid="crate-row" aria-busy={c.pending || undefined}>
              <div
                className={`flex items-center gap-3 rounded-2xl border border-line bg-panel/60 p-3 transition sm:gap-4 ${
                  c.pending ? "opacity-70" : "hover:border-white/25"
                }`}
              >
                <GradientTile
                  seed={c.crateName + c.crateUuid}
                  size={56}
                  rounded="rounded-xl"
                  className="max-sm:!size-12"
                />
                <div className="min-w-0 flex-1">
                  {editing === c.crateUuid ? (
                    <RenameField
                      crate={c}
                      onSave={(v) => void rename(c, v)}
                      onCancel={() => setEditing(null)}
                    />
                  ) : c.pending ? (
                    <p className="flex items-center gap-2 truncate font-semibold text-white">
                      <Loader2 aria-hidden className="size-4 shrink-0 animate-spin" />
                      <span className="truncate">{c.crateName}</span>
                    </p>
                  ) : (
                    <Link
                      to={`/crates/${c.crateUuid}`}
                      prefetch="intent"
                      className="block truncate font-semibold text-white hover:underline"
                      data-testid="crate-name"
                    >
                      {c.crateName}
                    </Link>
                  )}
                  <p className="mt-0.5 flex flex-wrap items-center gap-2 text-sm text-ink-300">
                    {plural(t, "crate.songCount", c.crateSongsNumber)}
                    {c.importStatus === "IN_PROGRESS" && (
                      <Tag tone="warning">{t("crate.importing")}</Tag>
                    )}
                    {c.importStatus === "FAILED" && (
                      <Tag tone="danger">{t("crate.importFailed")}</Tag>
                    )}
                  </p>
                </div>
                {!c.pending && editing !== c.crateUuid && (
                  <div className="flex shrink-0 items-center gap-0.5 sm:gap-1">
                    <IconButton
                      label={t("crates.renameFor", { name: c.crateName })}
                      onClick={() => setEditing(c.crateUuid)}
                      testId="rename-crate"
                    >
                      <Pencil aria-hidden className="size-4" />
                    </IconButton>
                    <IconButton
                      label={t("crates.copyFor", { name: c.crateName })}
                      onClick={() => void copy(c)}
                      testId="copy-crate"
                    >
                      <Copy aria-hidden className="size-4" />
                    </IconButton>
                    <IconButton
                      label={t("crates.deleteFor", { name: c.crateName })}
                      onClick={() => setDeleting(c)}
                      danger
                      testId="delete-crate"
                    >
                      <Trash2 aria-hidden className="size-4" />
                    </IconButton>
                  </div>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}

      <ConfirmDialog
        open={!!deleting}
        title={t("crates.deleteTitle", { name: deleting?.crateName ?? "" })}
        confirmLabel={t("crates.delete")}
        danger
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      >
        {plural(t, "crates.deleteBody", deleting?.crateSongsNumber ?? 0)}
      </ConfirmDialog>
    </section>
  );
}

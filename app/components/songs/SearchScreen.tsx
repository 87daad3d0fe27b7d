import { readSearchParams } from "~/lib/songs";
import type { loader } from "~/routes/search";
import { Form, useLoaderData, useNavigation, useRevalidator, useSubmit } from "@remix-run/react";
import { Loader2, Search as SearchIcon, SearchX } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { AddToCrateMenu, AddToQueueButton, PlayButton } from "~/components/songs/SongActions";
import { EmptyState, SongRow, SongRowSkeleton, Tag } from "~/components/songs/SongRow";
import { Alert, button, LoadError, PageTitle } from "~/components/ui";
import { hasKey, plural, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import {
  CATALOGUE,
  SEARCH_DEBOUNCE_MS,
  SEARCH_LIMIT,
  hasSongId,
  songKey,
  sourceProvider,
  uploadStream,
  type AnySong,
  type ProviderState,
  type SearchResult,
} from "~/lib/songs";

export function SearchScreen() {
  const t = useT();
  const { q, provider, clean, result } = useLoaderData<typeof loader>();
  const submit = useSubmit();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const form = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const [value, setValue] = useState(q);
  const [picked, setPicked] = useState(provider);
  useEffect(() => setPicked(provider), [provider]);
  // The providers the last answer reported, kept while the next search runs.
  const [providers, setProviders] = useState<Record<string, ProviderState>>(
    result?.ok ? (result.data.providers ?? {}) : {},
  );

  useEffect(() => {
    if (result?.ok && result.data.providers) setProviders(result.data.providers);
  }, [result]);
  // Back and forward change the URL: show its words unless the listener is typing.
  useEffect(() => {
    if (document.activeElement !== input.current) setValue(q);
  }, [q]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const searching = navigation.state === "loading" && navigation.location.pathname === "/search";
  const pendingParams = searching
    ? readSearchParams(
        new URL(navigation.location.pathname + navigation.location.search, "http://x"),
      )
    : null;

  /** Typing: search 300 ms after the last key (seed 001), replacing the history entry. */
  function schedule() {
    clearTimeout(timer.current);
    timer.current = setTimeout(
      () => form.current && submit(form.current, { replace: true, preventScrollReset: true }),
      SEARCH_DEBOUNCE_MS,
    );
  }
  function now() {
    clearTimeout(timer.current);
    if (form.current) submit(form.current, { replace: true, preventScrollReset: true });
  }

  function pick(p: string) {
    setPicked(p);
    // Submit after React has put the new choice in the form.
    setTimeout(now, 0);
  }

  // Providers that are off (no key here) are not offered (issue 20: six "(off)" pills
  // locally); one that is on but failing stays, marked, and so does one the URL picked.
  const providerList = Object.entries(providers).filter(
    ([p, state]) => p !== CATALOGUE && (state !== "off" || p === picked),
  );
  const resultKey = `${q}|${provider}|${clean}`;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <PageTitle>{t("search.heading")}</PageTitle>
      <p className="mt-2 text-ink-200">{t("search.lede")}</p>

      <Form
        ref={form}
        method="get"
        role="search"
        aria-label={t("search.heading")}
        className="mt-6 space-y-4"
        onSubmit={() => clearTimeout(timer.current)}
        preventScrollReset
      >
        <div className="relative">
          <label htmlFor="q" className="sr-only">
            {t("search.label")}
          </label>
          <SearchIcon
            aria-hidden
            className="pointer-events-none absolute left-4 top-1/2 size-5 -translate-y-1/2 text-ink-300"
          />
          <input
            ref={input}
            id="q"
            name="q"
            type="search"
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              schedule();
            }}
            placeholder={t("search.placeholder")}
            autoComplete="off"
            enterKeyHint="search"
            maxLength={200}
            data-testid="search-input"
            className="block w-full rounded-2xl border border-line bg-ink-900/80 py-3.5 pl-12 pr-12 text-lg text-ink-50 shadow-inner shadow-black/30 placeholder:text-ink-300 transition hover:border-white/30 focus:border-brand-light"
          />
          {searching && (
            <Loader2
              aria-hidden
              className="absolute right-4 top-1/2 size-5 -translate-y-1/2 animate-spin text-brand-light"
            />
          )}
        </div>

        <div className="flex flex-wrap items-center gap-x-4 gap-y-3">
          <fieldset className="min-w-0 max-w-full">
            <legend className="sr-only">{t("search.providers")}</legend>
            <div className="-mx-1 flex gap-1.5 overflow-x-auto px-1 pb-1 sm:flex-wrap sm:overflow-visible">
              <ProviderPill
                value=""
                label={t("search.all")}
                checked={picked === ""}
                onPick={pick}
              />
              <ProviderPill
                value={CATALOGUE}
                label={t("search.catalogue")}
                checked={picked === CATALOGUE}
                onPick={pick}
              />
              {providerList.map(([p, state]) => (
                <ProviderPill
                  key={p}
                  value={p}
                  label={providerName(p, t)}
                  checked={picked === p}
                  onPick={pick}
                  off={
                    state === "on"
                      ? undefined
                      : t(state === "error" ? "search.providerError" : "search.providerOff")
                  }
                />
              ))}
            </div>
          </fieldset>
          <label className="flex cursor-pointer items-center gap-2 text-sm text-ink-100">
            <input
              type="checkbox"
              name="clean"
              value="1"
              defaultChecked={clean}
              onChange={now}
              className="size-4 rounded accent-brand"
            />
            {t("search.hideExplicit")}
          </label>
          <noscript>
            <button type="submit" className={button("primary", "sm")}>
              {t("search.submit")}
            </button>
          </noscript>
        </div>
      </Form>

      <section aria-labelledby="results-heading" className="mt-8" aria-busy={searching}>
        <h2 id="results-heading" className="sr-only">
          {t("search.results")}
        </h2>
        {searching && pendingParams?.q && (!result || !result.ok) ? (
          <SongRowSkeleton rows={6} />
        ) : !result ? (
          <EmptyState
            icon={<SearchIcon aria-hidden className="size-7" />}
            title={t("search.emptyTitle")}
            body={t("search.emptyBody")}
          />
        ) : !result.ok ? (
          <LoadError error={result} onRetry={() => revalidator.revalidate()} />
        ) : (
          <div className={`transition-opacity ${searching ? "opacity-50" : ""}`}>
            <Results key={resultKey} q={q} provider={provider} clean={clean} first={result.data} />
          </div>
        )}
      </section>
    </div>
  );
}

function providerName(p: string, t: ReturnType<typeof useT>) {
  const key = `provider.${p}`;
  return hasKey(key) ? t(key) : p;
}

/** One choice in the provider selector: a radio styled as a pill; a provider that is off can't be picked. */
function ProviderPill({
  value,
  label,
  checked,
  onPick,
  off,
}: {
  value: string;
  label: string;
  checked: boolean;
  onPick: (value: string) => void;
  off?: string;
}) {
  return (
    <label
      className={`relative inline-flex shrink-0 items-center gap-1.5 rounded-full border px-3.5 py-1.5 text-sm font-medium transition has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-focus ${
        off
          ? "cursor-not-allowed border-white/10 text-ink-300"
          : checked
            ? "cursor-pointer border-transparent bg-white text-ink-950"
            : "cursor-pointer border-white/20 text-ink-100 hover:border-white/50 hover:bg-white/5"
      }`}
      title={off}
    >
      <input
        type="radio"
        name="provider"
        value={value}
        checked={checked}
        disabled={!!off}
        onChange={() => onPick(value)}
        className="sr-only"
      />
      {off && <span aria-hidden className="size-1.5 rounded-full bg-ink-300" />}
      <span>{label}</span>
      {off && <span className="text-xs text-ink-300">({off})</span>}
    </label>
  );
}

/** The hits: the first page from the loader, then "Load more" pages fetched in the browser. */
function Results({
  q,
  provider,
  clean,
  first,
}: {
  q: string;
  provider: string;
  clean: boolean;
  first: SearchResult;
}) {
  const t = useT();
  const client = useSongsClient();
  const [songs, setSongs] = useState<AnySong[]>(first.songs ?? []);
  const [offset, setOffset] = useState((first.offset ?? 0) + (first.songs?.length ?? 0));
  const [more, setMore] = useState((first.songs?.length ?? 0) >= (first.limit || SEARCH_LIMIT));
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function loadMore() {
    setLoading(true);
    setError(null);
    try {
      const page = await client.search({
        q,
        provider: provider || undefined,
        explicit: !clean,
        offset,
      });
      setSongs((s) => [...s, ...page.songs]);
      setOffset(offset + page.songs.length);
      setMore(page.songs.length >= (page.limit || SEARCH_LIMIT));
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setLoading(false);
    }
  }

  if (!songs.length) {
    return (
      <EmptyState
        icon={<SearchX aria-hidden className="size-7" />}
        title={t("search.noneTitle", { q })}
        body={t("search.noneBody")}
      />
    );
  }
  return (
    <>
      <p className="mb-2 px-2 text-sm text-ink-300" role="status">
        {plural(t, "search.count", songs.length, { q })}
      </p>
      <ul className="space-y-1" data-testid="search-results">
        {songs.map((s, i) => {
          const from = hasSongId(s) ? null : sourceProvider(s);
          return (
            <li key={songKey(s, i)} data-testid="search-result">
              <SongRow
                song={s}
                tag={
                  from ? (
                    <Tag tone="brand">{t("search.from", { provider: providerName(from, t) })}</Tag>
                  ) : uploadStream(s) ? (
                    <Tag tone="success">{t("search.upload")}</Tag>
                  ) : undefined
                }
                actions={
                  <>
                    <PlayButton song={s} list={songs.filter((x) => uploadStream(x))} />
                    <AddToQueueButton song={s} />
                    <AddToCrateMenu song={s} />
                  </>
                }
              />
            </li>
          );
        })}
      </ul>
      {loading && <SongRowSkeleton rows={3} />}
      {error && (
        <div className="mt-3">
          <Alert error={{ status: 0, message: error, generic: false }} />
        </div>
      )}
      {more && !loading && (
        <div className="mt-4 flex justify-center">
          <button type="button" onClick={loadMore} className={button("secondary", "sm")}>
            {error ? t("errors.retry") : t("common.loadMore")}
          </button>
        </div>
      )}
    </>
  );
}

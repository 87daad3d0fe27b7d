import { Form, Link } from "@remix-run/react";
import { Search } from "lucide-react";
import { button, Select } from "~/components/ui";
import { useT } from "~/i18n";
import { DISCOVER_SORTS, ROOM_GENRES, type DiscoverFilters } from "~/lib/discover";
import { ROOM_DESIGNS } from "~/lib/rooms";

/**
 * Discovery's search, sort and filters: a plain GET form, so the results are the page's
 * own server render and a search is a shareable link. Changing a select submits at once
 * (no "Find" press needed for a filter); the search field submits on Enter or the button.
 */
export function RoomFilters({ filters }: { filters: DiscoverFilters }) {
  const t = useT();
  const submitNow = (e: React.ChangeEvent<HTMLSelectElement>) =>
    e.currentTarget.form?.requestSubmit();
  const filtered = !!(filters.q || filters.genre || filters.design || filters.sort !== "listeners");
  return (
    <Form
      method="get"
      role="search"
      aria-label={t("discover.search")}
      className="mt-6 grid gap-3 rounded-3xl border border-white/10 bg-panel/70 p-4 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1fr_1fr_auto]"
      data-testid="room-filters"
    >
      <div>
        <label htmlFor="room-search" className="mb-1.5 block text-sm font-medium text-ink-100">
          {t("discover.search")}
        </label>
        <div className="relative">
          <Search
            aria-hidden
            className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-ink-300"
          />
          <input
            id="room-search"
            type="search"
            name="q"
            maxLength={100}
            defaultValue={filters.q}
            placeholder={t("discover.searchPlaceholder")}
            className="block w-full rounded-xl border border-line bg-ink-900/70 py-2.5 pl-9 pr-3.5 text-base text-ink-50 transition placeholder:text-ink-300 hover:border-white/30 focus:border-brand-light"
            data-testid="room-search"
          />
        </div>
      </div>
      <Select
        label={t("discover.sort")}
        name="sort"
        defaultValue={filters.sort}
        onChange={submitNow}
        data-testid="room-sort"
      >
        {DISCOVER_SORTS.map((s) => (
          <option key={s} value={s}>
            {t(`discover.sort.${s}`)}
          </option>
        ))}
      </Select>
      <Select
        label={t("discover.genre")}
        name="genre"
        defaultValue={filters.genre}
        onChange={submitNow}
        data-testid="room-genre"
      >
        <option value="">{t("discover.any")}</option>
        {ROOM_GENRES.map((g) => (
          <option key={g} value={g}>
            {t(`genre.${g}`)}
          </option>
        ))}
      </Select>
      <Select
        label={t("discover.design")}
        name="design"
        defaultValue={filters.design}
        onChange={submitNow}
        data-testid="room-design"
      >
        <option value="">{t("discover.any")}</option>
        {ROOM_DESIGNS.map((d) => (
          <option key={d} value={d}>
            {t(`design.${d}`)}
          </option>
        ))}
      </Select>
      <div className="flex items-end gap-2">
        <button type="submit" className={button("primary")} data-testid="room-search-submit">
          {t("discover.apply")}
        </button>
        {filtered && (
          <Link to="/rooms" className={button("ghost")}>
            {t("discover.clear")}
          </Link>
        )}
      </div>
    </Form>
  );
}

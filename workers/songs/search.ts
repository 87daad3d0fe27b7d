import { sql, type SQL } from "drizzle-orm";

/**
 * Turns what a person types into an FTS5 query: each word becomes a quoted prefix term
 * ("blue" "mon"*), so punctuation and FTS operators in the input cannot break the query
 * or change its meaning. Null when there is nothing to search for.
 */
export function ftsQuery(input: string): string | null {
  const words = input
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 12);
  if (!words.length) return null;
  return words.map((w) => `"${w}"*`).join(" ");
}

/** `songs.id IN (matches of the FTS query)`: the catalogue search condition, indexed. */
export function matchesSearch(input: string): SQL | null {
  const q = ftsQuery(input);
  return q ? sql`songs.id in (select rowid from songs_fts where songs_fts match ${q})` : null;
}

/**
 * A short per-isolate memo of public ranking pages (the board's rows joined with their
 * profiles, and the board's total), so a storm of readers of one page costs its season's
 * Leaderboard object and D1 one read per isolate every RANKING_CACHE_MS, not one each: the
 * object stays free for the point writes it serialises.
 *
 * - A page is at most RANKING_CACHE_MS old (measured from before it was read); after that
 *   the next reader reads it afresh. A reader's own row (`me`) is never cached, and a
 *   reader whose own row disagrees with the cached page (they belong on it and are missing,
 *   or shown with other points) reads the page afresh: nobody sees "your rank #1" above an
 *   empty list (ranking-repo.ts).
 * - Only answers are kept, never a pending read: a Worker must not await a promise another
 *   request started (that request may end first). Readers arriving while a page is being
 *   read each read it once; that burst is bounded by one read's duration.
 * - At most MAX_PAGES pages are kept; the oldest written goes first.
 * - The Cache API is not used: it does nothing on workers.dev, and this bound holds anywhere.
 */
export const RANKING_CACHE_MS = 2_000;
const MAX_PAGES = 200;

const pages = new Map<string, { at: number; value: unknown }>();

/** `load()`'s answer for `key`, reused for RANKING_CACHE_MS (`fresh`: read it now regardless). */
export async function cachedPage<T>(
  key: string,
  load: () => Promise<T>,
  fresh = false,
): Promise<T> {
  const now = Date.now();
  const hit = pages.get(key);
  if (!fresh && hit && now - hit.at < RANKING_CACHE_MS) return hit.value as T;
  const value = await load();
  // Re-inserted at the end, so the Map's order is the order pages were read.
  pages.delete(key);
  if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value as string);
  pages.set(key, { at: now, value });
  return value;
}

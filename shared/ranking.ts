/**
 * How far a ranking may be read, shared by the API (the 400s), the Leaderboard object (its
 * own guard) and the web app (its page links). A page is at most RANKING_MAX_TAKE rows;
 * `skip` goes at most RANKING_MAX_SKIP deep, so every read is one bounded index walk on
 * the season's object: beyond the first 10,000 places, a reader finds a user by name
 * (their ranking status), not by paging.
 */
export const RANKING_MAX_TAKE = 100;
export const RANKING_MAX_SKIP = 10_000;

import type { UserRow } from "../db/schema";

/**
 * Platform bans (issue 15), read from the account row. A ban is in force while `bannedAt` is
 * set and `bannedUntil` is null (permanent) or still ahead of the clock: a temporary ban ends
 * by itself at its time, checked on every call, so no job lifts it and no clock skew between
 * a job and the check can leave someone banned (or free) too long.
 *
 * Every door asks this one function: the API (lib/auth.ts callerFrom, 403), sign-in
 * (user-service/accounts.ts issueSession) and the room gateway (room-connect.ts).
 */
export interface ActiveBan {
  /** null: permanent. */
  until: number | null;
  reason: string | null;
}

type BanColumns = Pick<UserRow, "bannedAt" | "bannedUntil" | "banReason">;

/** The ban in force on `user` at `now`, or null. */
export function activeBan(user: BanColumns, now = Date.now()): ActiveBan | null {
  if (user.bannedAt === null || user.bannedAt === undefined) return null;
  if (user.bannedUntil !== null && user.bannedUntil !== undefined && user.bannedUntil <= now)
    return null;
  return { until: user.bannedUntil ?? null, reason: user.banReason ?? null };
}

/** What a banned person reads, everywhere: the API's 403, sign-in, the room's close. */
export { banMessage } from "../../shared/platform-removal";

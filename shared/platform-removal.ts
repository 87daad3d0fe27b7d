/**
 * What a person removed from the platform reads, written and read in one place (issue 15): the
 * user-service writes these texts (the API's 403, sign-in, the room's close reason) and the
 * web app reads them back into a ban or a kick face (app/lib/moderation.ts), so the two cannot
 * drift apart.
 */
export type PlatformRemoval =
  | { kind: "platformBan"; until: string | null; reason: string | null }
  | { kind: "platformKick"; reason: string | null };

export const BANNED_PREFIX = "Your account is banned";
const KICKED = "You were signed out of hangout by a moderator.";

/** A ban's text: "Your account is banned[ until <ISO>].[ Reason: ...]". */
export function banMessage(ban: { until: number | null; reason: string | null }): string {
  const when =
    ban.until === null
      ? `${BANNED_PREFIX}.`
      : `${BANNED_PREFIX} until ${new Date(ban.until).toISOString()}.`;
  return ban.reason ? `${when} Reason: ${ban.reason}` : when;
}

/** A platform kick's text, the room's close reason. */
export const kickNotice = (reason?: string | null) =>
  `${KICKED}${reason ? ` Reason: ${reason}` : ""}`;

const BAN = /^Your account is banned(?: until (\S+?))?\.(?: Reason: ([\s\S]*))?$/;
const KICK = /^You were signed out of hangout by a moderator\.(?: Reason: ([\s\S]*))?$/;

/** The removal a text of banMessage or kickNotice stands for; anything else (a room's own kick) is null. */
export function platformRemoval(text: string | null | undefined): PlatformRemoval | null {
  if (!text) return null;
  const ban = BAN.exec(text);
  if (ban) return { kind: "platformBan", until: ban[1] ?? null, reason: ban[2] || null };
  const kick = KICK.exec(text);
  if (kick) return { kind: "platformKick", reason: kick[1] || null };
  return null;
}

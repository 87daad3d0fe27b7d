import type { SongStatus, UploadDto } from "~/lib/songs";
import { PENDING_STATUSES } from "~/lib/songs";
import { STALE_UPLOAD_MS } from "../../../shared/songs";

/** Polling while a song's status is still moving (PENDING_UPLOAD, VALID_FILE_TYPE, VERIFICATION_POSTPONED). */
export const POLL_MS = 5000;

/** The tag colour for each status in "My uploads". */
export const STATUS_TONE: Record<
  SongStatus,
  "neutral" | "brand" | "success" | "warning" | "danger"
> = {
  PENDING_UPLOAD: "neutral",
  VALID_FILE_TYPE: "brand",
  MISSING_METADATA: "warning",
  VERIFIED: "success",
  UNVERIFIED: "danger",
  VERIFICATION_ERROR: "danger",
  VERIFICATION_POSTPONED: "warning",
};

/** Whether the service is still checking the song. */
export const isPending = (s: UploadDto) => PENDING_STATUSES.includes(s.status);

/**
 * A song still pending past the service's bound (plus two minutes for the every-minute
 * sweeper): something died, so the page stops checking and offers to check again or delete.
 */
export const isStalled = (s: UploadDto, now = Date.now()) =>
  isPending(s) && now - Date.parse(s.updatedAt) > STALE_UPLOAD_MS + 2 * 60_000;

/** Whether the song is worth checking again: pending and not stalled. */
export const shouldPoll = (s: UploadDto, now = Date.now()) => isPending(s) && !isStalled(s, now);

/** Songs that will never play as they are: the owner can only delete them (or upload again). */
export const isFailed = (s: UploadDto) =>
  s.status === "VERIFICATION_ERROR" || s.status === "UNVERIFIED";

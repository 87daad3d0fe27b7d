import type { SongStatus, UploadDto } from "~/lib/songs";
import { PENDING_STATUSES } from "~/lib/songs";

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

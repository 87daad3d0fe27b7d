import { MODERATOR_ROLES, type UserRole } from "../../shared/roles";
// Type-only: the shapes come from the server's own DTO builders, so page and API agree.
import type { toModeratedProfile } from "../../workers/user-service/accounts";
import type { toActionDto } from "../../workers/user-service/moderation-log";
import type { Refusal } from "../../workers/user-service/moderation-rules";

/** Where the moderation calls answer (the user-service; the audit trail is its own service). */
export const USER_SERVICE = "/api/user-service";
export const AUDIT_SERVICE = "/api/audit-service";

export type ModeratedUser = ReturnType<typeof toModeratedProfile>;
export type ModerationActionDto = ReturnType<typeof toActionDto>;

/** GET /users/{id}/moderation: the account and what this moderator may do to it. */
export interface ModerationState {
  user: ModeratedUser;
  mayAct: boolean;
  refusal: Refusal | null;
  grantableRoles: UserRole[];
}

export interface CursorPage<T> {
  data: T[];
  nextBefore: number | null;
}

export interface ModerationComment {
  id: number;
  targetUuid: string;
  authorUuid: string;
  authorNickname: string | null;
  comment: string;
  createdAt: string;
}

/** How many history rows and comments a page shows at a time. */
export const MODERATION_PAGE = 10;

export const isModerator = (roles: readonly string[] | null | undefined) =>
  !!roles?.some((r) => (MODERATOR_ROLES as readonly string[]).includes(r));

/** Temporary ban lengths the page offers, in minutes (the API takes 1 minute to 1 year). */
export const BAN_DURATIONS = [
  60,
  6 * 60,
  24 * 60,
  3 * 24 * 60,
  7 * 24 * 60,
  30 * 24 * 60,
  365 * 24 * 60,
] as const;

// The removal texts and their reader live with the writer (shared/platform-removal.ts).
export { platformRemoval, type PlatformRemoval } from "../../shared/platform-removal";

/** The audit-service's event (GET /audit-events). */
export interface AuditEvent {
  id: number;
  eventId: string;
  topic: string;
  userUuid: string | null;
  actorUuid: string | null;
  targetUuid: string | null;
  requestId: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  data: unknown;
  occurredAt: string;
}

export interface AuditPage {
  data: AuditEvent[];
  total: number;
  skip: number;
  take: number;
}

export const AUDIT_PAGE = 25;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

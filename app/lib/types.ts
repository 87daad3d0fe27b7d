import { ADMIN_ROLES, type TokenType, type UserRole } from "../../shared/roles";

// The shapes the user-service answers with come from the server's own DTO builders
// (workers/user-service/accounts.ts), so the page and the API cannot drift apart.
// Type-only imports: no server code reaches the browser bundle.
import type { issueSession, OtherProfile, OwnProfile } from "../../workers/user-service/accounts";

/** The signed-in user's own profile. */
export type User = OwnProfile;
/** Another user's public profile (OtherUserProfileResDto). */
export type PublicProfile = OtherProfile;

export interface SessionInfo {
  user: User | null;
  tokenType: TokenType;
  roles: UserRole[];
  expiresAt?: string | number;
}

export type AuthResult = Awaited<ReturnType<typeof issueSession>>;

export interface Paged<T> {
  data: T[];
  count: number;
  total: number;
  page: number;
  pageCount: number;
}

/** Whether these roles may open the admin pages. */
export const isAdmin = (roles: readonly string[] | undefined | null) =>
  !!roles?.some((r) => (ADMIN_ROLES as readonly string[]).includes(r));

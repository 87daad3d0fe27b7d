import { ADMIN_ROLES } from "../../shared/roles";

/** The shapes the user-service answers with, as the web app reads them. */
export interface User {
  id: number;
  uuid: string;
  email: string | null;
  emailVerified: boolean;
  nickname: string;
  firstName?: string | null;
  lastName?: string | null;
  color?: string | null;
  avatarId?: string | null;
  pronoun?: string | null;
  displayPronouns?: boolean | null;
  zodiac?: string | null;
  bio?: string | null;
  profilePicture?: string | null;
  coverPicture?: string | null;
  roles?: string[];
  capabilities?: string[];
  badges?: string[];
  createdAt?: string | number | null;
}

/** Another user's public profile (OtherUserProfileResDto). */
export interface PublicProfile {
  id?: number;
  uuid: string;
  nickname: string;
  firstName?: string | null;
  lastName?: string | null;
  color?: string | null;
  avatarId?: string | null;
  pronoun?: string | null;
  displayPronouns?: boolean | null;
  zodiac?: string | null;
  bio?: string | null;
  coverPicture?: string | null;
  profilePicture?: string | null;
  badges?: string[];
  createdAt?: string | number | null;
}

export interface SessionInfo {
  user: User | null;
  tokenType: "user" | "guest" | "bot" | "ghost";
  roles: string[];
  expiresAt?: string | number;
}

export interface AuthResult {
  token: string;
  user: User;
}

export interface Paged<T> {
  data: T[];
  count: number;
  total: number;
  page: number;
  pageCount: number;
}

/** Whether these roles may open the admin pages. */
export const isAdmin = (roles: readonly string[] | undefined | null) => !!roles?.some((r) => (ADMIN_ROLES as readonly string[]).includes(r));

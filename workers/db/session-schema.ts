import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Web sessions (issue 13): what a browser's session cookie stands for. The browser holds only
 * a random 256-bit id in an HttpOnly `__Host-` cookie; D1 holds its SHA-256 (a leaked table
 * cannot be replayed as cookies), the account, and the account's sessionVersion when it was
 * made, so "log out everywhere" and a password change end it like every token. Ending one
 * session is deleting its row. Re-exported by schema.ts (drizzle-kit reads it).
 */
export const webSessions = sqliteTable(
  "web_sessions",
  {
    /** SHA-256 (hex) of the cookie's id. */
    idHash: text("id_hash").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    /** "user" or "bot": the kind of token the session stands for. */
    tokenType: text("token_type").$type<"user" | "bot">().notNull(),
    /** users.session_version when the session began: a later bump ends it. */
    sessionVersion: integer("session_version").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Absolute end (WEB_SESSION_TTL_MS after sign-in); the cookie's Max-Age matches it. */
    expiresAt: integer("expires_at").notNull(),
    /** The browser it began in (first 200 characters of User-Agent), for a session list. */
    userAgent: text("user_agent"),
  },
  (t) => [index("web_sessions_user_idx").on(t.userUuid, t.createdAt)],
);
export type WebSessionRow = typeof webSessions.$inferSelect;

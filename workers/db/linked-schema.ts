import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Linked provider accounts (issue 16, "Linking"; docs/DECISIONS.md, "Linked accounts").
 * Re-exported by schema.ts (drizzle-kit reads it).
 *
 * Provider secrets (refresh tokens, the cached access token, an Apple Music User Token) are
 * never stored in the clear: each `*_enc` column holds base64(iv | AES-GCM ciphertext) made
 * by workers/lib/sealed.ts with a key derived from ROOT_SECRET for this purpose, and
 * `key_id` names that key so a rotated root still opens old rows (they are re-sealed with
 * the new key the next time they are written).
 */

/** The providers a person can link (seed 000, "Music provider (linking)", plus Discord). */
export const LINK_PROVIDERS = ["discord", "spotify", "youtube", "soundcloud", "apple"] as const;
export type LinkProvider = (typeof LINK_PROVIDERS)[number];
/** SoundCloud's mobile app is a second OAuth client of its own (`/soundcloud/mobile/...`). */
export type LinkVariant = "web" | "mobile";

export const linkedAccounts = sqliteTable(
  "linked_accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull(),
    provider: text("provider").$type<LinkProvider>().notNull(),
    variant: text("variant").$type<LinkVariant>().notNull().default("web"),
    /** The provider's id of the person (Discord snowflake, Spotify user id, ...). */
    externalId: text("external_id").notNull(),
    /** What the provider calls them, for the Connected accounts page. */
    displayName: text("display_name"),
    refreshTokenEnc: text("refresh_token_enc"),
    accessTokenEnc: text("access_token_enc"),
    /** When the cached access token lapses (epoch ms); null: none cached. */
    accessExpiresAt: integer("access_expires_at"),
    /** The key both `*_enc` columns were sealed with (lib/sealed.ts). */
    keyId: text("key_id").notNull(),
    scope: text("scope"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // One link per provider (and client) per account...
    uniqueIndex("linked_accounts_user_idx").on(t.userId, t.provider, t.variant),
    // ...and one account per provider identity: a Discord account signs in exactly one person.
    uniqueIndex("linked_accounts_external_idx").on(t.provider, t.variant, t.externalId),
  ],
);
export type LinkedAccountRow = typeof linkedAccounts.$inferSelect;

/**
 * OAuth `state` values in flight. Only the SHA-256 of a state is kept; a state is bound to
 * the account that asked for it (null for a Discord sign-in, where the web page binds it to
 * the browser with a cookie), to one provider and client, lives ten minutes, and is spent by
 * a conditional update, so a replay or a race finds nothing. The PKCE verifier is sealed.
 */
export const oauthStates = sqliteTable(
  "oauth_states",
  {
    stateHash: text("state_hash").primaryKey(),
    provider: text("provider").$type<LinkProvider>().notNull(),
    variant: text("variant").$type<LinkVariant>().notNull().default("web"),
    /** "link" (an account links a provider) or "sign-in" (Discord sign-in or sign-up). */
    intent: text("intent").$type<"link" | "sign-in">().notNull(),
    userId: integer("user_id"),
    verifierEnc: text("verifier_enc"),
    keyId: text("key_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [index("oauth_states_expires_idx").on(t.expiresAt)],
);

/**
 * The app's own provider tokens (SoundCloud's client-credentials token), shared by every
 * isolate: sealed, with its expiry, and a lease so only one isolate refreshes at a time.
 */
export const appTokens = sqliteTable("app_tokens", {
  name: text("name").primaryKey(),
  tokenEnc: text("token_enc"),
  keyId: text("key_id"),
  expiresAt: integer("expires_at").notNull().default(0),
  /** While in the future, one caller is fetching a new token; the others wait for it. */
  leaseUntil: integer("lease_until").notNull().default(0),
});

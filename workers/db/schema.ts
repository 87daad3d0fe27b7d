import { nowMs } from "./now";
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type {
  Badge,
  EmailStatus,
  EmailType,
  ImageKind,
  UserCapability,
  UserRole,
  VoucherStatus,
} from "../../shared/roles";
import type {
  CrateType,
  ImportStatus,
  MusicProvider,
  ProviderIds,
  SongStatus,
} from "../../shared/songs";
import type { DjType, RoomDesign, RoomGenre, RoomSettings, RoomType } from "../../shared/rooms";

/**
 * The D1 schema. Migrations in migrations/ are generated from this file with
 * `npm run db:generate`; never edit a migration that has landed, add a new one.
 * Times are epoch milliseconds (integers); JSON columns hold small lists and maps.
 */
const now = nowMs;
const timestamps = {
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
};

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uuid: text("uuid").notNull().unique(),
    /** The login e-mail, lowercase. Null for accounts made without one. */
    email: text("email").unique(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`; null until a password is set. */
    passwordHash: text("password_hash"),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
    nickname: text("nickname").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    color: text("color").notNull().default("562DF9"),
    avatarId: text("avatar_id"),
    pronoun: text("pronoun"),
    displayPronouns: integer("display_pronouns", { mode: "boolean" }).notNull().default(false),
    songOfTheWeek: text("song_of_the_week"),
    zodiac: text("zodiac"),
    bio: text("bio"),
    profilePicture: text("profile_picture"),
    coverPicture: text("cover_picture"),
    facebook: text("facebook"),
    instagram: text("instagram"),
    twitter: text("twitter"),
    snapchat: text("snapchat"),
    tiktok: text("tiktok"),
    priceForGig: integer("price_for_gig"),
    roles: text("roles", { mode: "json" })
      .$type<UserRole[]>()
      .notNull()
      .default(sql`'["user"]'`),
    capabilities: text("capabilities", { mode: "json" })
      .$type<UserCapability[]>()
      .notNull()
      .default(sql`'[]'`),
    badges: text("badges", { mode: "json" })
      .$type<Badge[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Free-form client settings (`/users/profile/user-data`), at most 16 KB. */
    userData: text("user_data", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    /** For bots: the user who made the bot. */
    ownerUuid: text("owner_uuid"),
    subscriptionLevel: text("subscription_level"),
    /** Bumped on password change and reset: tokens signed before it stop working. */
    sessionVersion: integer("session_version").notNull().default(0),
    deactivated: integer("deactivated", { mode: "boolean" }).notNull().default(false),
    /** When the user asked to be deactivated (`/users/request-deactivate`); null: no request. */
    deactivationRequestedAt: integer("deactivation_requested_at"),
    /**
     * A platform ban (workers/lib/bans.ts): in force while `bannedAt` is set and `bannedUntil`
     * is null (permanent) or still ahead. A temporary ban ends by the clock alone; unban clears
     * all three. Nothing else about the account changes.
     */
    bannedAt: integer("banned_at"),
    bannedUntil: integer("banned_until"),
    banReason: text("ban_reason"),
    ...timestamps,
  },
  // avatar_id: losing an avatar takes it off every wearer (workers/merch-service/avatars/avatar-rules.ts).
  (t) => [
    index("users_nickname_idx").on(t.nickname),
    // Finding people by nickname prefix, case-insensitively (workers/social-service/people-search.ts).
    index("users_nickname_lower_idx").on(sql`lower(${t.nickname})`),
    index("users_updated_idx").on(t.updatedAt),
    index("users_avatar_idx").on(t.avatarId),
    // Counting a person's bots (sign-up-bot's limit).
    index("users_owner_idx").on(t.ownerUuid),
    // The admin's list of deactivation requests, oldest first.
    index("users_deactivation_request_idx").on(t.deactivationRequestedAt),
    // The deactivated accounts by uuid, and only those: what a new ranking board copies
    // (durable/leaderboard-hidden.ts), read without walking every account.
    index("users_deactivated_idx")
      .on(t.uuid)
      .where(sql`${t.deactivated} = 1`),
  ],
);

export const userEmails = sqliteTable(
  "user_emails",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    type: text("type").$type<EmailType>().notNull().default("personal"),
    status: text("status").$type<EmailStatus>().notNull().default("PENDING_VERIFICATION"),
    /** SHA-256 of the six-digit code last sent; null once verified. */
    codeHash: text("code_hash"),
    codeSentAt: integer("code_sent_at"),
    /** Wrong guesses against the current code; at 5 the code is spent. */
    codeAttempts: integer("code_attempts").notNull().default(0),
    verifiedAt: integer("verified_at"),
    /**
     * The contact-book HMAC of the address (social-service/contact-hash.ts), so a contact
     * book matches by hash. Filled when the row is added; null rows are filled lazily.
     */
    contactHash: text("contact_hash"),
    ...timestamps,
  },
  (t) => [
    index("user_emails_user_idx").on(t.userId),
    index("user_emails_email_idx").on(t.email),
    index("user_emails_contact_hash_idx").on(t.contactHash),
  ],
);

/** One-time tokens: magic links and password resets. Only the SHA-256 of a token is kept. */
export const oneTimeTokens = sqliteTable(
  "one_time_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind").$type<"magic-link" | "password-reset">().notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    target: text("target"),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: timestamps.createdAt,
  },
  (t) => [index("one_time_tokens_user_idx").on(t.userId)],
);

export const vouchers = sqliteTable("vouchers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  code: text("code").notNull().unique(),
  status: text("status").$type<VoucherStatus>().notNull().default("PENDING"),
  /** What redeeming grants: a capability, or nothing beyond the account itself. */
  capability: text("capability").$type<UserCapability>(),
  note: text("note"),
  createdBy: text("created_by").notNull(),
  redeemedBy: text("redeemed_by"),
  redeemedAt: integer("redeemed_at"),
  ...timestamps,
});

export const userImages = sqliteTable(
  "user_images",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    kind: text("kind").$type<ImageKind>().notNull(),
    r2Key: text("r2_key").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [index("user_images_user_idx").on(t.userUuid)],
);

/** What would have been sent (e-mail, SMS, push) when no provider is configured. */
export const devOutbox = sqliteTable(
  "dev_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    channel: text("channel").$type<"email" | "sms" | "whatsapp" | "push">().notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    /** Idempotency: a redelivered queue message writes no second row. */
    messageId: text("message_id").notNull().unique(),
    createdAt: timestamps.createdAt,
  },
  (t) => [index("dev_outbox_to_idx").on(t.to)],
);

export type UserRow = typeof users.$inferSelect;
export type UserEmailRow = typeof userEmails.$inferSelect;
export type VoucherRow = typeof vouchers.$inferSelect;

// ---------------------------------------------------------------------------------------
// Songs, catalogue and crates (playlist-service and upload-service).
// ---------------------------------------------------------------------------------------

/**
 * A song: catalogue entries (imported from providers or seeded) and uploads alike. The
 * FTS5 table `songs_fts` (migrations/0002_songs_fts.sql) indexes track, artist, album and
 * genre; triggers keep it in step with this table.
 */
export const songs = sqliteTable(
  "songs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The public id (uuid). */
    songId: text("song_id").notNull().unique(),
    /** A short public id (10 base-62 characters) for links. */
    songShortId: text("song_short_id").notNull().unique(),
    isrc: text("isrc"),
    trackName: text("track_name").notNull().default(""),
    artistName: text("artist_name").notNull().default(""),
    genre: text("genre"),
    /** Seconds. */
    duration: integer("duration").notNull().default(0),
    explicit: integer("explicit", { mode: "boolean" }).notNull().default(false),
    releaseYear: integer("release_year"),
    albumName: text("album_name"),
    artistId: integer("artist_id"),
    albumId: integer("album_id"),
    /**
     * The matching rule's name key: artist and track, NFKC-normalised and lower-cased the
     * Unicode way (shared/songs.ts `nameKey`). SQLite's lower() folds ASCII only, so "ÉLAN"
     * and "élan" would be two songs; this key makes them one (migration 0023). Null on rows
     * written before it whose names are not plain ASCII (the old lower() term covers those).
     */
    nameKey: text("name_key"),
    status: text("status").$type<SongStatus>().notNull().default("PENDING_UPLOAD"),
    musicProviders: text("music_providers", { mode: "json" })
      .$type<ProviderIds>()
      .notNull()
      .default(sql`'{}'`),
    thumbnails: text("thumbnails", { mode: "json" })
      .$type<Partial<Record<MusicProvider, string>>>()
      .notNull()
      .default(sql`'{}'`),
    links: text("links", { mode: "json" })
      .$type<Partial<Record<MusicProvider, string>>>()
      .notNull()
      .default(sql`'{}'`),
    previews: text("previews", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    streamUrls: text("stream_urls", { mode: "json" })
      .$type<Partial<Record<MusicProvider, string>>>()
      .notNull()
      .default(sql`'{}'`),
    /** The uploader (null for catalogue songs). Only they edit its tags. */
    ownerUuid: text("owner_uuid"),
    /** Listed for everyone (GET /songs/public, search) once VERIFIED. */
    isPublic: integer("is_public", { mode: "boolean" }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index("songs_isrc_idx").on(t.isrc),
    index("songs_owner_idx").on(t.ownerUuid, t.createdAt),
    index("songs_status_public_idx").on(t.status, t.isPublic),
    index("songs_artist_id_idx").on(t.artistId),
    index("songs_album_id_idx").on(t.albumId),
    // Track import finds an existing catalogue song by provider id or by artist + track
    // (seed 001 matching rule) without scanning the catalogue; the queries repeat these
    // expressions exactly so SQLite can use them. Genre listing filters by lower(genre).
    index("songs_seven_digital_idx").on(sql`json_extract(music_providers, '$.sevenDigital')`),
    index("songs_sound_cloud_idx").on(sql`json_extract(music_providers, '$.soundCloudPublic')`),
    index("songs_spotify_idx").on(sql`json_extract(music_providers, '$.spotify')`),
    index("songs_apple_idx").on(sql`json_extract(music_providers, '$.apple')`),
    index("songs_upload_service_idx").on(sql`json_extract(music_providers, '$.uploadService')`),
    index("songs_artist_track_lower_idx").on(
      sql`lower(trim(artist_name))`,
      sql`lower(trim(track_name))`,
    ),
    index("songs_genre_lower_idx").on(sql`lower(genre)`),
    index("songs_name_key_idx").on(t.nameKey),
  ],
);

/**
 * An uploaded song's audio: the original file in R2 and, once segmented, its HLS segment
 * index (byte ranges of the original MP3, cut at frame boundaries; see docs/DECISIONS.md).
 */
export const songFiles = sqliteTable("song_files", {
  songId: integer("song_id")
    .primaryKey()
    .references(() => songs.id, { onDelete: "cascade" }),
  r2Key: text("r2_key").notNull(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  /** `[{ offset, length, duration }]` in file order; null until segmented. */
  segments: text("segments", { mode: "json" }).$type<
    { offset: number; length: number; duration: number }[]
  >(),
  /** Why verification failed or was postponed, for the uploader. */
  detail: text("detail"),
  ...timestamps,
});

export const genres = sqliteTable("genres", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  createdAt: timestamps.createdAt,
});

export const artists = sqliteTable("artists", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  thumbnail: text("thumbnail"),
  createdAt: timestamps.createdAt,
});

export const albums = sqliteTable(
  "albums",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    artistName: text("artist_name").notNull(),
    releaseYear: integer("release_year"),
    thumbnail: text("thumbnail"),
    createdAt: timestamps.createdAt,
  },
  (t) => [uniqueIndex("albums_name_artist").on(t.name, t.artistName)],
);

/** A crate (playlist). The queue and likes crates are the user's special crates. */
export const crates = sqliteTable(
  "crates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    crateUuid: text("crate_uuid").notNull().unique(),
    userUuid: text("user_uuid").notNull(),
    crateName: text("crate_name").notNull(),
    description: text("description"),
    /** null for an ordinary crate; "default" is the queue, "tt-stars" the likes. */
    crateType: text("crate_type").$type<CrateType>(),
    isPublic: integer("is_public", { mode: "boolean" }).notNull().default(true),
    currentPosition: integer("current_position").notNull().default(0),
    importStatus: text("import_status").$type<ImportStatus>(),
    thumbnails: text("thumbnails", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [
    index("crates_user_idx").on(t.userUuid, t.createdAt),
    uniqueIndex("crates_user_special").on(t.userUuid, t.crateType),
  ],
);

/** A song in a crate. Positions are dense (0..n-1) and rewritten in one batch on each move. */
export const crateSongs = sqliteTable(
  "crate_songs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    crateSongUuid: text("crate_song_uuid").notNull().unique(),
    crateId: integer("crate_id")
      .notNull()
      .references(() => crates.id, { onDelete: "cascade" }),
    songId: integer("song_id")
      .notNull()
      .references(() => songs.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    index("crate_songs_crate_pos").on(t.crateId, t.position),
    index("crate_songs_song_idx").on(t.songId),
  ],
);

/** A song played in a room (seed 001, Recent room song play). */
export const recentSongPlays = sqliteTable(
  "recent_song_plays",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Idempotency: the room's play id, so a retried record writes one row. */
    playId: text("play_id").notNull().unique(),
    roomSlug: text("room_slug").notNull(),
    song: text("song", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    voteCounts: text("vote_counts", { mode: "json" })
      .$type<{ likes: number; dislikes: number; stars: number }>()
      .notNull(),
    djUuid: text("dj_uuid").notNull(),
    playedAt: integer("played_at").notNull(),
  },
  (t) => [
    index("recent_song_plays_room_idx").on(t.roomSlug, t.playedAt),
    // Similar tracks (workers/similar/local.ts) finds the plays of a song by the song's id
    // inside the JSON; the query repeats this expression exactly. Written by hand in 0027.
    index("recent_song_plays_song_idx").on(sql`json_extract(song, '$.songId')`, t.playedAt),
  ],
);

export type SongRow = typeof songs.$inferSelect;
export type CrateRow = typeof crates.$inferSelect;

// ---------------------------------------------------------------------------------------
// Rooms (room-service). The live state is in the Room object; D1 keeps what is listed.
// ---------------------------------------------------------------------------------------

/**
 * A room's listing and settings. Defaults here match shared/rooms.ts roomSettingsSchema, so
 * a row and the object's copy of the settings agree without restating them in code.
 */
export const rooms = sqliteTable(
  "rooms",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uuid: text("uuid").notNull().unique(),
    /** Lowercase, [a-z0-9-], 3..50, never all digits nor uuid-shaped (so `{id}` is unambiguous). */
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    description: text("description"),
    vibe: text("vibe"),
    djType: text("dj_type").$type<DjType>().notNull().default("EVERYONE"),
    type: text("type").$type<RoomType>().notNull().default("PUBLIC"),
    design: text("design").$type<RoomDesign>().notNull().default("CLUB"),
    /** What the room mostly plays (shared/rooms.ts ROOM_GENRES); null: not said. */
    genre: text("genre").$type<RoomGenre>(),
    /** Providers the room plays from; empty means any. */
    musicProviderKeys: text("music_provider_keys", { mode: "json" })
      .$type<MusicProvider[]>()
      .notNull()
      .default(sql`'[]'`),
    numberOfDjs: integer("number_of_djs").notNull().default(5),
    songsPerDj: integer("songs_per_dj"),
    roomSize: integer("room_size").notNull().default(200),
    /** Tokens a non-owner pays to enter (0 = free); charging is the token shop's job. */
    entryFee: integer("entry_fee").notNull().default(0),
    freeEntries: integer("free_entries").notNull().default(0),
    /** PBKDF2 (workers/lib/password.ts); write-only: never in a DTO. */
    passwordHash: text("password_hash"),
    /**
     * 16 bits of a keyed HMAC of the password, so POST /rooms/list finds candidate rooms by
     * index instead of running PBKDF2 against every private room (docs/DECISIONS.md).
     */
    passwordBucket: integer("password_bucket"),
    guestPasswordHash: text("guest_password_hash"),
    unlisted: integer("unlisted", { mode: "boolean" }).notNull().default(false),
    promoted: integer("promoted", { mode: "boolean" }).notNull().default(false),
    isLive: integer("is_live", { mode: "boolean" }).notNull().default(true),
    liveAudio: integer("live_audio", { mode: "boolean" }).notNull().default(false),
    hasChat: integer("has_chat", { mode: "boolean" }).notNull().default(true),
    posterUrl: text("poster_url"),
    externalUrl: text("external_url"),
    pinnedMessages: text("pinned_messages", { mode: "json" })
      .$type<RoomSettings["pinnedMessages"]>()
      .notNull()
      .default(sql`'[]'`),
    discordGuildId: text("discord_guild_id"),
    ownerUuid: text("owner_uuid").notNull(),
    maxSongSeconds: integer("max_song_seconds").notNull().default(900),
    afkMinutes: integer("afk_minutes").notNull().default(30),
    autoSkipRatio: real("auto_skip_ratio").notNull().default(0.5),
    repeatWindowMinutes: integer("repeat_window_minutes").notNull().default(60),
    ...timestamps,
  },
  (t) => [
    index("rooms_owner_idx").on(t.ownerUuid, t.createdAt),
    index("rooms_listing_idx").on(t.type, t.unlisted, t.createdAt),
    // Discovery's genre filter (GET /rooms/discover?genre=) over listed rooms.
    index("rooms_listing_genre_idx").on(t.type, t.unlisted, t.genre, t.createdAt),
    index("rooms_promoted_idx").on(t.promoted, t.createdAt),
    index("rooms_password_bucket_idx").on(t.passwordBucket),
    index("rooms_discord_idx").on(t.discordGuildId),
  ],
);

/** A user's favourite room (seed 001, Room favourite). */
export const roomFavorites = sqliteTable(
  "room_favorites",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    roomUuid: text("room_uuid").notNull(),
    userUuid: text("user_uuid").notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    uniqueIndex("room_favorites_user_room").on(t.userUuid, t.roomUuid),
    index("room_favorites_room_idx").on(t.roomUuid),
  ],
);

/** Rooms a user visited, one row per pair; a new visit moves `visitedAt`. */
export const recentRooms = sqliteTable(
  "recent_rooms",
  {
    userUuid: text("user_uuid").notNull(),
    roomUuid: text("room_uuid").notNull(),
    visitedAt: integer("visited_at").notNull(),
  },
  (t) => [
    uniqueIndex("recent_rooms_user_room").on(t.userUuid, t.roomUuid),
    index("recent_rooms_user_visited").on(t.userUuid, t.visitedAt),
    index("recent_rooms_room_idx").on(t.roomUuid),
  ],
);

export type RoomRow = typeof rooms.$inferSelect;
export type RoomFavoriteRow = typeof roomFavorites.$inferSelect;

// The token shop, payments, points and avatars live in their own files (one job each);
// re-exported here so `db()` and drizzle-kit see one schema.
export * from "./shop-schema";
export * from "./room-live-schema";
export * from "./points-schema";
export * from "./session-schema";
export * from "./social-schema";
export * from "./notify-schema";
export * from "./moderation-schema";
export * from "./audit-schema";
export * from "./phone-schema";
export * from "./chat-schema";
export * from "./linked-schema";
export * from "./import-schema";
export * from "./upload-schema";
export * from "./analysis-schema";
export * from "./refill-schema";
export * from "./community-schema";

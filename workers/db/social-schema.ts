import { nowMs } from "./now";
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/**
 * The social graph (issue 14, seed 001 "Social entities"): who follows which DJ, friend
 * invitations and friendships, blocks, and the contact book. Every side is a user uuid (the
 * id the clients and the room know). Counts are COUNT(*) over these indexed columns, never
 * stored counters, so they cannot drift from the rows. Times are epoch milliseconds.
 */
const now = nowMs;

/** A fan (`user_uuid`) follows a DJ (`dj_uuid`). `id` orders lists newest first, stably. */
export const djFans = sqliteTable(
  "dj_fans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    djUuid: text("dj_uuid").notNull(),
    userUuid: text("user_uuid").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  // The pair is unique (following twice is one row); its prefix serves "fans of a DJ".
  (t) => [
    uniqueIndex("dj_fans_pair_idx").on(t.djUuid, t.userUuid),
    index("dj_fans_user_idx").on(t.userUuid),
  ],
);

export const INVITATION_STATUSES = ["pending", "accepted", "rejected"] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const friendInvitations = sqliteTable(
  "friend_invitations",
  {
    uuid: text("uuid").primaryKey(),
    fromUuid: text("from_uuid").notNull(),
    toUuid: text("to_uuid").notNull(),
    status: text("status").$type<InvitationStatus>().notNull().default("pending"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    index("friend_invitations_from_idx").on(t.fromUuid, t.status),
    index("friend_invitations_to_idx").on(t.toUuid, t.status),
    // At most one PENDING invitation per unordered pair: a second one the same way is a 409,
    // and two crossing invitations sent at once cannot both be stored (the loser finds the
    // winner's and accepts it: friend-invitations.ts).
    uniqueIndex("friend_invitations_pending_pair_idx")
      .on(sql`min(${t.fromUuid}, ${t.toUuid})`, sql`max(${t.fromUuid}, ${t.toUuid})`)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** A friendship, stored once with the pair sorted (`user_a < user_b`). */
export const friends = sqliteTable(
  "friends",
  {
    userA: text("user_a").notNull(),
    userB: text("user_b").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.userA, t.userB] }), index("friends_user_b_idx").on(t.userB)],
);

export const blockedUsers = sqliteTable(
  "blocked_users",
  {
    blockerUuid: text("blocker_uuid").notNull(),
    blockedUuid: text("blocked_uuid").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.blockerUuid, t.blockedUuid] }),
    index("blocked_users_blocked_idx").on(t.blockedUuid),
  ],
);

export const CONTACT_KINDS = ["phone", "email"] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];

/**
 * The contact book, as keyed hashes only (docs/DECISIONS.md, "The contact book"): the
 * HMAC-SHA-256 of a normalised phone or e-mail under the "contact-book" purpose key. The raw
 * book is never stored; `hash` is matched against user_emails.contact_hash.
 */
export const userContactHashes = sqliteTable(
  "user_contact_hashes",
  {
    userUuid: text("user_uuid").notNull(),
    kind: text("kind").$type<ContactKind>().notNull(),
    hash: text("hash").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.userUuid, t.hash] }),
    index("user_contact_hashes_hash_idx").on(t.hash),
  ],
);

export type DjFanRow = typeof djFans.$inferSelect;
export type FriendInvitationRow = typeof friendInvitations.$inferSelect;
export type FriendRow = typeof friends.$inferSelect;
export type BlockedUserRow = typeof blockedUsers.$inferSelect;

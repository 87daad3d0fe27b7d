import { nowMs } from "./now";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/**
 * Direct messages (issue 16, "Tokens for clients"): our own chat store in place of CometChat.
 * A conversation is one `dm_conversations` row per unordered pair of users (pair sorted, so
 * two first messages sent at once find the same row). Each side has its own
 * `dm_conversation_members` row carrying what only that side sees: its unread counter, how
 * far it has read, and the time of the last message, so "my conversations, newest first"
 * and "my unread count" are index reads, never scans of the messages. Times are epoch ms.
 */
const now = nowMs;

export const dmConversations = sqliteTable(
  "dm_conversations",
  {
    uuid: text("uuid").primaryKey(),
    userA: text("user_a").notNull(),
    userB: text("user_b").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("dm_conversations_pair_idx").on(t.userA, t.userB)],
);

export const dmConversationMembers = sqliteTable(
  "dm_conversation_members",
  {
    userUuid: text("user_uuid").notNull(),
    conversationUuid: text("conversation_uuid").notNull(),
    peerUuid: text("peer_uuid").notNull(),
    /** Messages from the peer after `readUpTo`: set exactly by mark-read, +1 per message. */
    unread: integer("unread").notNull().default(0),
    /** The id of the newest message this side has read (0: none). */
    readUpTo: integer("read_up_to").notNull().default(0),
    lastMessageAt: integer("last_message_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.userUuid, t.conversationUuid] }),
    index("dm_members_recent_idx").on(t.userUuid, t.lastMessageAt),
  ],
);

export const dmMessages = sqliteTable(
  "dm_messages",
  {
    /** Monotonic: paging (`before`/`after`) and "read up to" use it. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    conversationUuid: text("conversation_uuid").notNull(),
    senderUuid: text("sender_uuid").notNull(),
    text: text("text").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("dm_messages_conversation_idx").on(t.conversationUuid, t.id)],
);

/**
 * Who may write to a user: `friendsOnly` keeps strangers out (blocks keep anyone out,
 * whatever this says). No row: anyone may write (the default).
 */
export const dmSettings = sqliteTable("dm_settings", {
  userUuid: text("user_uuid").primaryKey(),
  friendsOnly: integer("friends_only", { mode: "boolean" }).notNull().default(false),
  updatedAt: integer("updated_at").notNull().default(now),
});

export type DmConversationRow = typeof dmConversations.$inferSelect;
export type DmMemberRow = typeof dmConversationMembers.$inferSelect;
export type DmMessageRow = typeof dmMessages.$inferSelect;

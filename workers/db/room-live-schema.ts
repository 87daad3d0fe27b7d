import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * What the live rooms keep in D1 about the people on their sockets (issue 11): where each
 * signed-in user is connected, so an account change reaches those rooms, and what each guest
 * has heard, against the free-play limit. Re-exported by schema.ts (drizzle-kit reads it).
 */

/**
 * Which rooms a signed-in user has opened a socket in (the room gateway records it when it
 * admits one), so a change to the account (roles, sessions, deactivation) reaches every room
 * that may hold their sockets. A row is dropped when the room answers that it holds none.
 */
export const roomConnections = sqliteTable(
  "room_connections",
  {
    userUuid: text("user_uuid").notNull(),
    roomUuid: text("room_uuid").notNull(),
    connectedAt: integer("connected_at").notNull(),
  },
  (t) => [
    uniqueIndex("room_connections_user_room").on(t.userUuid, t.roomUuid),
    index("room_connections_room_idx").on(t.roomUuid),
  ],
);

/**
 * Songs each guest has heard in rooms (spec 001 Playback: "Guests beyond a free-play limit
 * cannot play"; the limit is GUEST_FREE_PLAYS in shared/rooms.ts). Keyed by the guest
 * token's uuid, so it holds across reconnects and rooms; written by the rooms' outboxes,
 * once per play (`lastPlayId` makes a retried write count nothing twice), read by the room
 * gateway at connect.
 */
export const guestPlays = sqliteTable("guest_plays", {
  guestUuid: text("guest_uuid").primaryKey(),
  plays: integer("plays").notNull().default(0),
  lastPlayId: text("last_play_id"),
  updatedAt: integer("updated_at").notNull(),
});

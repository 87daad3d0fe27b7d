// Communities and scheduled events (room-service), re-exported by schema.ts.
import { nowMs as now } from "./now";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { rooms } from "./schema";

/** As in schema.ts (a value, not imported: schema.ts re-exports this file, a cycle). */
const timestamps = {
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
};

/**
 * A community: a named group of users and rooms (seed 001, Room service: communities).
 * Slugs follow the room rule (lowercase, [a-z0-9-], never all digits nor uuid-shaped) so
 * `{id}` in a path is unambiguous.
 */
export const communities = sqliteTable("communities", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  uuid: text("uuid").notNull().unique(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  description: text("description"),
  imageUrl: text("image_url"),
  ownerUuid: text("owner_uuid").notNull(),
  isPublic: integer("is_public", { mode: "boolean" }).notNull().default(true),
  ...timestamps,
});

/** Membership; the unique pair makes joining twice one row. */
export const communityMembers = sqliteTable(
  "community_members",
  {
    communityId: integer("community_id")
      .notNull()
      .references(() => communities.id, { onDelete: "cascade" }),
    userUuid: text("user_uuid").notNull(),
    role: text("role").$type<"member" | "admin">().notNull().default("member"),
    joinedAt: integer("joined_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("community_members_pair").on(t.communityId, t.userUuid),
    index("community_members_user_idx").on(t.userUuid),
  ],
);

/** Rooms listed in a community; a room may be in several. */
export const communityRooms = sqliteTable(
  "community_rooms",
  {
    communityId: integer("community_id")
      .notNull()
      .references(() => communities.id, { onDelete: "cascade" }),
    roomId: integer("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("community_rooms_pair").on(t.communityId, t.roomId),
    index("community_rooms_room_idx").on(t.roomId),
  ],
);

/** A scheduled event, optionally in a room and/or a community; endsAt > startsAt (checked on write). */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uuid: text("uuid").notNull().unique(),
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    description: text("description"),
    roomId: integer("room_id").references(() => rooms.id, { onDelete: "set null" }),
    communityId: integer("community_id").references(() => communities.id, { onDelete: "set null" }),
    hostUuid: text("host_uuid").notNull(),
    startsAt: integer("starts_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    imageUrl: text("image_url"),
    ...timestamps,
  },
  (t) => [index("events_starts_at_idx").on(t.startsAt)],
);

export type CommunityRow = typeof communities.$inferSelect;
export type EventRow = typeof events.$inferSelect;

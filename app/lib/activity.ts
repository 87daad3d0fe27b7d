import type { RoomDto } from "./rooms";

/**
 * The Discord Activity (issue 16): what the page needs from the server and what its
 * sign-in step answers. The page talks to Discord through the Embedded App SDK
 * (components/activity/discord-frame.ts) and to us only by relative URLs, which Discord's
 * proxy maps to this Worker (docs/DECISIONS.md, "Discord Activity").
 */
export interface ActivityConfig {
  /** Our Discord application's client id (public: it is in every authorize URL); null when Discord is off. */
  clientId: string | null;
}

/** The room the frame opens: one per guild is picked, several are listed. */
export type GuildRoom = Pick<RoomDto, "slug" | "name" | "numberOfUsersInRoom">;

export interface ActivitySignIn {
  /** Discord's access token for the SDK's `authenticate` (never our token, never a refresh token). */
  accessToken: string;
  /** The rooms bound to the frame's guild (empty outside a guild, e.g. a DM). */
  rooms: GuildRoom[];
}

/** Where the frame shows a room: a framable twin of /rooms/{slug}. */
export const activityRoomPath = (slug: string) => `/activity/rooms/${encodeURIComponent(slug)}`;

/** A Discord snowflake, as the frame's `guild_id` query parameter carries it. */
export const SNOWFLAKE = /^\d{1,25}$/;

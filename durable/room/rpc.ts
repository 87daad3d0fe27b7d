/**
 * The Room's RPC surface beside its methods (durable/room.ts): the shapes its answers take
 * and the checks its arguments pass. The room-service is trusted, but a wrong call must
 * fail loudly, not corrupt the room.
 */
import { z } from "zod";
import { ROOM_ROLES } from "../../shared/rooms";
import { sendChat } from "../../shared/protocol";
import { USER_ROLES } from "../../shared/roles";
import { MAX_BLOCKS } from "../../workers/social-service/blocks";
import { chatProfile } from "./profile";
import type { RoomStorage } from "./storage";

/** The room list's view of a room (getSummary): the room-service copies it into RoomDto.song. */
export interface RoomSummary {
  userUuids: string[];
  numberOfActiveDjs: number;
  nowPlaying: {
    songId: string;
    trackName: string;
    artistName: string;
    duration: number | null;
    thumbnails: Record<string, string | undefined>;
    djUuid: string;
    djName: string | null;
    startTime: number;
    endTime: number;
  } | null;
}

/** What a room card shows (getSummary), read from the tables, not the published state. */
export function roomSummary(storage: RoomStorage, userUuids: string[]): RoomSummary {
  const np = storage.nowPlaying();
  const dj = np ? storage.profile(np.djUuid) : undefined;
  return {
    userUuids,
    numberOfActiveDjs: storage.djs().length,
    nowPlaying: np
      ? {
          songId: np.song.songId,
          trackName: np.song.trackName,
          artistName: np.song.artistName,
          duration: np.song.duration ?? null,
          thumbnails: np.song.thumbnails ?? {},
          djUuid: np.djUuid,
          djName: dj?.nickname ?? null,
          startTime: np.startTime,
          endTime: np.endTime,
        }
      : null,
  };
}

/** configureRelays (tests and the bench): a room's relay threshold and relay size. */
export const relayConfig = z.object({
  threshold: z.number().int().min(1).max(1_000_000),
  perRelay: z.number().int().min(1).max(5_000),
});

/** setRole / removeRole. */
export const roleArgs = z.object({
  userUuid: z.string().min(1).max(64),
  role: z.enum(ROOM_ROLES),
  expirationTime: z
    .union([
      z.number(),
      z
        .string()
        .transform(
          (s, ctx) =>
            Date.parse(s) || (ctx.addIssue({ code: "custom", message: "bad date" }), z.NEVER),
        ),
    ])
    .nullable(),
});

export const refreshArgs = z.object({
  userUuid: z.string().min(1).max(64),
  account: z
    .object({
      roles: z.array(z.enum(USER_ROLES)).max(USER_ROLES.length),
      sessionVersion: z.number().int().min(0),
      /**
       * What the room shows of the account now (nickname, avatar, colour, badges): it
       * replaces the room's copy and every client hears `updatedUserProfile` (room/profile.ts).
       */
      profile: chatProfile.optional(),
    })
    .nullable(),
  /** Whom the user blocked now, read from D1 at `at` (room/blocks.ts). */
  blocks: z
    .object({ list: z.array(z.string().min(1).max(64)).max(MAX_BLOCKS), at: z.number() })
    .optional(),
  /**
   * Why the user's sockets close, when they do (a platform kick or ban, issue 15): the room
   * sends it as `kickedFromRoom` and closes with CLOSE_KICKED, so the client stops knocking.
   */
  notice: z.string().min(1).max(600).optional(),
});
export type RefreshArgs = z.infer<typeof refreshArgs>;
export type BlocksNow = { list: string[]; at: number };

/** readChat / postChat: the caller as the room-service verified it (an account: user or bot). */
const chatCaller = {
  userUuid: z.string().min(1).max(64),
  tokenType: z.enum(["user", "bot"]),
  roles: z.array(z.enum(USER_ROLES)).max(USER_ROLES.length),
};
export const chatReadArgs = z.object({
  ...chatCaller,
  before: z.string().min(1).max(64).nullable(),
  limit: z.number().int().min(1).max(50),
});
export const chatPostArgs = z.object({
  ...chatCaller,
  message: sendChat.omit({ action: true }),
});

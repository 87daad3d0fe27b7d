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
    .object({ roles: z.array(z.enum(USER_ROLES)), sessionVersion: z.number().int().min(0) })
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

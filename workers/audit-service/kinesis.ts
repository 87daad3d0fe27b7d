import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { PLAY_TOPICS } from "../../shared/play-tracking";
import { MUSIC_PROVIDERS } from "../../shared/songs";
import type { AppEnv } from "../env";
import { caller, requireAnyToken } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { MSG } from "./messages";

/**
 * Play tracking intake (seed 001, Audit service: `POST /kinesis`). The name is the live
 * product's (it fed a Kinesis stream); here events go through the audit queue to D1.
 */
export const kinesisRoutes = new Hono<AppEnv>();

/** Seed 001 gives no sizes; these keep one event small (a D1 row, a queue message). */
export const SONG_INFO_MAX_BYTES = 4096;
const BODY_MAX_BYTES = 16 * 1024;

const byteLength = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;
const optionalId = z.string().min(1).max(100).nullable();
// Browsers send UTC ("Z"); native clients may send their local offset.
const isoDate = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date" });
// Web players report 0–1; some native players report 0–100.
const volume = z.number().min(0).max(100);

const songInfo = z
  .looseObject({ songId: z.string().min(1).max(100) })
  .refine((s) => byteLength(s) <= SONG_INFO_MAX_BYTES, {
    message: `songInfo must be at most ${SONG_INFO_MAX_BYTES} bytes`,
  });

/** The play-tracking record (seed 001) plus the device it came from. */
export const kinesisRecord = z
  .object({
    // Accepted but never trusted: the stored value is always the caller's (see below).
    userUuid: optionalId.optional(),
    roomSlug: optionalId,
    roomOwnerUuid: fields.uuid.nullable(),
    djUuid: fields.uuid.nullable(),
    songInfo,
    startedDate: isoDate,
    updatedDate: isoDate,
    volumeStart: volume,
    volumeEnd: volume,
    playId: fields.uuid,
    sent15sec: z.boolean(),
    sent30sec: z.boolean(),
    userProvider: z.enum(MUSIC_PROVIDERS).nullable(),
    subscriptionLevel: z.string().max(50).nullable(),
    deviceData: z.object({
      platform: z.enum(["web", "ios", "android"]),
      isDiscord: z.boolean(),
      isLoggedIn: z.boolean(),
    }),
  })
  .refine((r) => Date.parse(r.updatedDate) >= Date.parse(r.startedDate), {
    message: "updatedDate must not be before startedDate",
    path: ["updatedDate"],
  });

const kinesisBody = z.object({ topic: z.enum(PLAY_TOPICS), kinesisDataRecord: kinesisRecord });

kinesisRoutes.post(
  "/kinesis",
  requireAnyToken,
  // A cap before parsing, so a huge body is refused without being read into memory.
  bodyLimit({
    maxSize: BODY_MAX_BYTES,
    onError: () => {
      throw new ApiError(413, MSG.bodyTooLarge(BODY_MAX_BYTES));
    },
  }),
  valid("json", kinesisBody),
  async (c) => {
    const who = caller(c, ["user", "bot", "guest", "ghost"]);
    const { topic, kinesisDataRecord } = c.req.valid("json");
    // A client records only its own plays, and login status comes from the token
    // (seed 001: "Login status is derived from the token type being user").
    const record = {
      ...kinesisDataRecord,
      userUuid: who.uuid,
      deviceData: { ...kinesisDataRecord.deviceData, isLoggedIn: who.type === "user" },
    };
    // One event per play, topic and listener: a retried POST or a redelivered message is
    // stored once. The listener is part of the key because a play in a room carries the
    // room's playId, which every listener of that song shares (docs/DECISIONS.md).
    await audit(c, topic, who.uuid, record, `${topic}:${record.playId}:${who.uuid}`);
    return c.json({ accepted: true }, 202);
  },
);

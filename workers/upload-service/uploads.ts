import { Hono } from "hono";
import { z } from "zod";
import type { SongStatus } from "../../shared/songs";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { boundaryOf, MultipartError, readParts } from "../lib/multipart-stream";
import {
  AUDIO_TYPES,
  MB,
  MULTIPART_SLACK,
  tooLargeMessage,
  type UploadRules,
} from "../lib/uploads";
import { publicOrigin } from "../lib/links";
import { parseOr400 } from "../lib/validate";
import { tagFields, text, toUploadDto } from "./common";
import { MSG } from "./messages";
import { SongReceiver } from "./receive";

/**
 * Song uploads: `POST /upload/song`. An uploaded song moves through these statuses
 * (seed 001 names them and leaves the transitions open; docs/DECISIONS.md, "Uploaded songs"):
 *
 * | from                   | event                                                        | to                     |
 * |------------------------|--------------------------------------------------------------|------------------------|
 * | (nothing)              | the file part's first bytes sniff as audio; row made          | PENDING_UPLOAD         |
 * | PENDING_UPLOAD         | every byte stored in R2                                       | VALID_FILE_TYPE        |
 * | PENDING_UPLOAD, VALID_FILE_TYPE | unchanged for an hour (the Worker died): the sweeper | VERIFICATION_ERROR     |
 * | VALID_FILE_TYPE        | MP3 indexed into segments; track and artist known (form, ID3)| VERIFIED               |
 * | VALID_FILE_TYPE        | MP3 indexed; a name missing                                   | MISSING_METADATA       |
 * | VALID_FILE_TYPE        | MP3 with no frames, mostly junk, or too fragmented            | VERIFICATION_ERROR     |
 * | VALID_FILE_TYPE        | WAV, FLAC, Ogg or M4A (needs an MP3 rendition)                | VERIFICATION_POSTPONED |
 * | VERIFICATION_POSTPONED | transcoder COMPLETE: rendition indexed, names known           | VERIFIED               |
 * | VERIFICATION_POSTPONED | transcoder COMPLETE: rendition indexed, a name missing        | MISSING_METADATA       |
 * | VERIFICATION_POSTPONED | transcoder ERROR, or its rendition is not playable MP3        | VERIFICATION_ERROR     |
 * | VERIFICATION_POSTPONED | the transcoder unreachable 5 times, or silent for an hour     | VERIFICATION_ERROR     |
 * | MISSING_METADATA       | the owner supplies both names (POST /metadata, PATCH)         | VERIFIED               |
 * | any settled status     | an admin's PATCH `status: "UNVERIFIED"` (a takedown)          | UNVERIFIED             |
 * | UNVERIFIED             | an admin's PATCH `status: "VERIFIED"`, if it has segments     | VERIFIED (or MISSING_METADATA without names) |
 *
 * A refused or failed upload (4xx, or an error while streaming) deletes its row and R2
 * bytes instead of leaving a status behind. Only VERIFIED songs play (HLS, hls.ts).
 */
export const SONG_TRANSITIONS: Readonly<Record<SongStatus, readonly SongStatus[]>> = {
  PENDING_UPLOAD: ["VALID_FILE_TYPE", "VERIFICATION_ERROR"],
  VALID_FILE_TYPE: ["VERIFIED", "MISSING_METADATA", "VERIFICATION_ERROR", "VERIFICATION_POSTPONED"],
  VERIFICATION_POSTPONED: ["VERIFIED", "MISSING_METADATA", "VERIFICATION_ERROR", "UNVERIFIED"],
  MISSING_METADATA: ["VERIFIED", "UNVERIFIED"],
  VERIFIED: ["UNVERIFIED"],
  VERIFICATION_ERROR: ["UNVERIFIED"],
  UNVERIFIED: ["VERIFIED", "MISSING_METADATA"],
};

export const canTransition = (from: SongStatus, to: SongStatus) =>
  SONG_TRANSITIONS[from].includes(to);

/** The largest song file accepted. */
export const MAX_SONG_BYTES = 50 * MB;
export const SONG_RULES: UploadRules = {
  allow: AUDIO_TYPES,
  maxBytes: MAX_SONG_BYTES,
  field: "file",
};

/**
 * The upload form's text fields; a web form's empty input counts as not sent. Checked
 * before the file streams when they come first (the usual order), and again at the end
 * for fields sent after it.
 */
const uploadForm = z.strictObject({
  trackName: tagFields.trackName,
  artistName: tagFields.artistName,
  albumName: text("albumName", 200).optional(),
  genre: text("genre", 50).optional(),
  isPublic: z
    .enum(["true", "false"], { error: "isPublic must be true or false" })
    .transform((v) => v === "true")
    .optional(),
});
const FORM_FIELDS = new Set(Object.keys(uploadForm.shape));
const parseForm = (fields: Record<string, string>) =>
  parseOr400(
    uploadForm,
    Object.fromEntries(Object.entries(fields).filter(([, v]) => v.trim() !== "")),
  );

/** Bytes of one text field (the longest allowed name is 200 characters, up to 800 UTF-8 bytes). */
const MAX_FIELD_BYTES = 4096;

export const uploadRoutes = new Hono<AppEnv>();

/**
 * POST /upload/song: multipart `file` (+ trackName, artistName, albumName, genre,
 * isPublic). The body is read as a stream (workers/lib/multipart-stream.ts) and the file
 * piped to R2, never buffered whole; answers 201 with the song in its settled status.
 */
uploadRoutes.post("/upload/song", requireUser, async (c) => {
  const who = caller(c);
  const boundary = boundaryOf(c.req.header("Content-Type"));
  const body = c.req.raw.body;
  if (!boundary || !body) throw new ApiError(400, MSG.notMultipart);
  // A declared length that cannot fit is refused before a byte is read.
  if (Number(c.req.header("Content-Length")) > SONG_RULES.maxBytes + MULTIPART_SLACK)
    throw new ApiError(413, tooLargeMessage(SONG_RULES));
  const fields: Record<string, string> = {};
  const rx = new SongReceiver(c.env, who.uuid, SONG_RULES, publicOrigin(c));
  try {
    for await (const part of readParts(body, boundary, { maxParts: 16 })) {
      if (part.filename === undefined) {
        if (part.name === "file") throw new ApiError(400, MSG.fileRequired);
        if (!FORM_FIELDS.has(part.name)) throw new ApiError(400, MSG.unknownField(part.name));
        if (part.name in fields) throw new ApiError(400, MSG.duplicateField(part.name));
        fields[part.name] = await part.text(MAX_FIELD_BYTES);
        continue;
      }
      if (part.name !== "file") throw new ApiError(400, MSG.unexpectedFile(part.name));
      if (rx.started) throw new ApiError(400, MSG.oneFile);
      parseForm(fields);
      await rx.receive(part.chunks());
    }
    if (!rx.started) throw new ApiError(400, MSG.fileRequired);
    const up = await rx.settle(parseForm(fields));
    return c.json(toUploadDto(up, who), 201);
  } catch (err) {
    await rx.discard();
    throw err instanceof MultipartError ? new ApiError(400, err.message) : err;
  }
});

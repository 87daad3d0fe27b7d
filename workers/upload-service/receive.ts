import { eq } from "drizzle-orm";
import { transcoderAvailable } from "../adapters/transcoder";
import { db } from "../db/client";
import { songFiles, songs, songUploads, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { R2StreamWriter } from "../lib/r2-stream";
import {
  AUDIO_TYPES,
  SNIFF_BYTES,
  sniffType,
  tooLargeMessage,
  typeLabel,
  unsupportedTypeMessage,
  type MediaType,
  type UploadRules,
} from "../lib/uploads";
import { newShortId } from "../songs/dto";
import { Mp3Indexer } from "../songs/mp3";
import { mergeTags, originalKey, verdict, type Upload, type Verdict } from "./common";
import { MSG } from "./messages";
import { recordFacetsQuietly } from "../songs/facets";

/**
 * One song upload on its way in (POST /upload/song; the states are the table in
 * uploads.ts). The file part streams through here: its first bytes are sniffed before
 * anything is written, then the row is made (PENDING_UPLOAD) and every chunk goes both to
 * R2 (multipart, bounded memory) and, for an MP3, to the frame indexer, so the file is
 * read exactly once. `discard` undoes whatever was done, so a refused upload leaves
 * nothing in R2 or D1.
 */
export class SongReceiver {
  started = false;
  private song?: SongRow;
  private writer?: R2StreamWriter;
  private indexer?: Mp3Indexer;
  private contentType?: MediaType;
  private size = 0;

  constructor(
    private readonly env: Env,
    private readonly ownerUuid: string,
    private readonly rules: UploadRules,
    /** This Worker's public origin (lib/links.ts), for the transcoder's signed URLs and callback. */
    private readonly origin: string,
  ) {}

  /** Streams the file part into R2; the song is VALID_FILE_TYPE when this returns. */
  async receive(chunks: AsyncIterable<Uint8Array>): Promise<void> {
    this.started = true;
    let head = new Uint8Array(0);
    for await (const chunk of chunks) {
      this.size += chunk.length;
      // Counted as it streams: a chunked body has no Content-Length to trust.
      if (this.size > this.rules.maxBytes) throw new ApiError(413, tooLargeMessage(this.rules));
      if (this.writer) {
        await this.write(chunk);
        continue;
      }
      const joined = new Uint8Array(head.length + chunk.length);
      joined.set(head);
      joined.set(chunk, head.length);
      head = joined;
      if (head.length >= SNIFF_BYTES) await this.start(head);
    }
    if (this.size === 0) throw new ApiError(400, MSG.fileEmpty);
    if (!this.writer) await this.start(head);
    await this.writer!.close();
    const d = db(this.env);
    const song = this.song!;
    const now = Date.now();
    await d.batch([
      d.insert(songFiles).values({
        songId: song.id,
        r2Key: this.writer!.key,
        contentType: this.contentType!,
        size: this.size,
      }),
      d
        .update(songs)
        .set({ status: "VALID_FILE_TYPE", updatedAt: now })
        .where(eq(songs.id, song.id)),
      // Every byte is in R2: nothing is left for the stale sweeper to abort.
      d.delete(songUploads).where(eq(songUploads.songId, song.id)),
    ]);
    song.status = "VALID_FILE_TYPE";
  }

  /** Bytes so far are audio: the row exists from here on, and R2 starts receiving. */
  private async start(head: Uint8Array) {
    const type = sniffType(head.subarray(0, SNIFF_BYTES));
    if (!type || !(AUDIO_TYPES as readonly MediaType[]).includes(type))
      throw new ApiError(415, unsupportedTypeMessage(this.rules));
    // Audio that plays only from an MP3 rendition is refused, before any row, when no
    // transcoder can make one (not configured, or the local one is not running).
    if (type !== "audio/mpeg" && !(await transcoderAvailable(this.env)))
      throw new ApiError(415, MSG.needsTranscoder(typeLabel(type)));
    this.contentType = type;
    const songId = crypto.randomUUID();
    const d = db(this.env);
    this.song = await d
      .insert(songs)
      .values({
        songId,
        songShortId: newShortId(),
        ownerUuid: this.ownerUuid,
        musicProviders: { uploadService: songId },
        status: "PENDING_UPLOAD",
      })
      .returning()
      .get();
    const key = originalKey(songId);
    const id = this.song.id;
    // Remembered until every byte is stored, so a Worker dying mid-upload leaves something
    // the sweeper can find (stale-uploads.ts), including the multipart upload's id.
    await d.insert(songUploads).values({ songId: id, r2Key: key });
    this.writer = new R2StreamWriter(this.env.UPLOADS, key, {
      httpMetadata: { contentType: type },
      customMetadata: { songId, ownerUuid: this.ownerUuid },
    });
    this.writer.onOpen = async (uploadId) => {
      await d.update(songUploads).set({ uploadId }).where(eq(songUploads.songId, id));
    };
    if (type === "audio/mpeg") this.indexer = new Mp3Indexer();
    await this.write(head);
  }

  private async write(chunk: Uint8Array) {
    this.indexer?.push(chunk);
    await this.writer!.write(chunk);
  }

  /**
   * The verdict, once every form field is known: an MP3 is indexed already, so it becomes
   * VERIFIED, MISSING_METADATA or VERIFICATION_ERROR here; other audio waits for the
   * transcoder (VERIFICATION_POSTPONED). One batch writes song and file together.
   */
  async settle(form: {
    trackName?: string;
    artistName?: string;
    albumName?: string;
    genre?: string;
    isPublic?: boolean;
  }): Promise<Upload> {
    const song = this.song!;
    const ix = this.indexer?.finish();
    const names = mergeTags(form, ix?.tags ?? {});
    const v: Verdict = ix
      ? verdict(ix, names)
      : {
          status: "VERIFICATION_POSTPONED",
          detail: MSG.postponed(typeLabel(this.contentType!)),
          segments: null,
          duration: 0,
        };
    const d = db(this.env);
    const now = Date.now();
    const [[updated], [file]] = await d.batch([
      d
        .update(songs)
        .set({
          ...names,
          isPublic: form.isPublic ?? false,
          status: v.status,
          duration: v.duration,
          updatedAt: now,
        })
        .where(eq(songs.id, song.id))
        .returning(),
      d
        .update(songFiles)
        .set({ segments: v.segments, detail: v.detail, updatedAt: now })
        .where(eq(songFiles.songId, song.id))
        .returning(),
    ]);
    // A public, verified upload names its genre, artist and album in the catalogue lists.
    await recordFacetsQuietly(this.env, updated);
    if (v.status === "VERIFICATION_POSTPONED") await this.enqueueTranscode(updated.songId);
    return { song: updated, file };
  }

  /**
   * The transcode job. A queue that refuses it is logged, not a failed upload: the bytes are
   * stored, and the stale sweeper fails the song within its bound if no job ever runs.
   */
  private async enqueueTranscode(songId: string) {
    try {
      await this.env.TRANSCODES.send({ songId, origin: this.origin });
    } catch (err) {
      console.error(`queueing the transcode of ${songId} failed`, err);
    }
  }

  /** Leaves nothing behind: the R2 upload or object, then the rows. Never throws over the original error. */
  async discard(): Promise<void> {
    try {
      await this.writer?.discard();
    } catch (err) {
      console.error("discarding a song upload in R2 failed", err);
    }
    const song = this.song;
    if (!song) return;
    const d = db(this.env);
    try {
      await d.batch([
        d.delete(songFiles).where(eq(songFiles.songId, song.id)),
        d.delete(songUploads).where(eq(songUploads.songId, song.id)),
        d.delete(songs).where(eq(songs.id, song.id)),
      ]);
    } catch (err) {
      console.error("discarding a song upload in D1 failed", err);
    }
  }
}

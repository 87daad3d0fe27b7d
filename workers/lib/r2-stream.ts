import { MB } from "./uploads";

/**
 * Writes a stream of chunks of any size into one R2 object with bounded memory: bytes fill
 * a part buffer, and each full part goes to an R2 multipart upload while the next fills
 * (at most two parts in memory). R2 wants every part but the last the same size and at
 * least 5 MiB, so parts are exactly `partSize`. A body that never fills one part is stored
 * with a single put instead (one R2 operation rather than three).
 *
 * @example
 *   const w = new R2StreamWriter(env.UPLOADS, key, { httpMetadata: { contentType } });
 *   try { for await (const c of chunks) await w.write(c); await w.close(); }
 *   catch (e) { await w.discard(); throw e; }
 */

export const R2_PART_SIZE = 5 * MB;

export class R2StreamWriter {
  private buf: Uint8Array;
  private filled = 0;
  private upload?: R2MultipartUpload;
  private readonly parts: R2UploadedPart[] = [];
  private inflight?: Promise<void>;
  private failure?: unknown;
  private closed = false;
  /** Bytes written so far. */
  size = 0;
  /**
   * Called once the multipart upload is open, before its first part: the R2 binding cannot
   * list open uploads, so a caller that must find one again after a crash records its id.
   */
  onOpen?: (uploadId: string) => Promise<void>;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly options: R2MultipartOptions = {},
    private readonly partSize = R2_PART_SIZE,
  ) {
    this.buf = new Uint8Array(partSize);
  }

  async write(chunk: Uint8Array): Promise<void> {
    let at = 0;
    while (at < chunk.length) {
      const n = Math.min(this.partSize - this.filled, chunk.length - at);
      this.buf.set(chunk.subarray(at, at + n), this.filled);
      this.filled += n;
      this.size += n;
      at += n;
      if (this.filled === this.partSize) await this.sendPart();
    }
  }

  /** Sends the full buffer as the next part; waits for the previous one first (back-pressure). */
  private async sendPart() {
    await this.settle();
    if (!this.upload) {
      this.upload = await this.bucket.createMultipartUpload(this.key, this.options);
      await this.onOpen?.(this.upload.uploadId);
    }
    const upload = this.upload;
    const data = this.buf;
    const number = this.parts.length + 1;
    // The rejection is kept and rethrown at the next await, never left unhandled.
    this.inflight = upload.uploadPart(number, data).then(
      (p) => void this.parts.push(p),
      (e) => void (this.failure = e),
    );
    this.buf = new Uint8Array(this.partSize);
    this.filled = 0;
  }

  private async settle() {
    await this.inflight;
    this.inflight = undefined;
    if (this.failure) throw this.failure;
  }

  /** Stores what was written: the last (short) part and completion, or one put for a small body. */
  async close(): Promise<void> {
    if (!this.upload) {
      await this.bucket.put(this.key, this.buf.subarray(0, this.filled), {
        httpMetadata: this.options.httpMetadata,
        customMetadata: this.options.customMetadata,
      });
    } else {
      await this.settle();
      if (this.filled)
        this.parts.push(
          await this.upload.uploadPart(this.parts.length + 1, this.buf.subarray(0, this.filled)),
        );
      await this.upload.complete(this.parts);
    }
    this.closed = true;
  }

  /** Leaves nothing behind: aborts an unfinished multipart upload, or deletes a stored object. */
  async discard(): Promise<void> {
    await this.inflight?.catch(() => undefined);
    if (this.closed) await this.bucket.delete(this.key);
    else if (this.upload) await this.upload.abort();
  }
}

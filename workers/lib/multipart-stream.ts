import { LIB_MSG } from "./messages";
/**
 * A streaming multipart/form-data reader (RFC 7578). `Request.formData()` buffers the whole
 * body, which is fine for a 5 MB picture and not for a 50 MB song: here each part's bytes
 * are handed on as they arrive, so memory holds one network chunk plus a boundary's worth
 * of carry, whatever the file's size.
 *
 * @example
 *   for await (const part of readParts(req.body, boundaryOf(req.headers.get("Content-Type"))!)) {
 *     if (part.filename !== undefined) for await (const chunk of part.chunks()) await sink.write(chunk);
 *     else fields[part.name] = await part.text(4096);
 *   }
 */

/** The body is not well-formed multipart; routes answer it with a 400. */
export class MultipartError extends Error {}

export interface Part {
  name: string;
  /** Present (maybe empty) when the part is a file. */
  filename?: string;
  contentType?: string;
  /** The part's bytes in order. Call once; the next part is found whether or not it is drained. */
  chunks(): AsyncGenerator<Uint8Array>;
  /** The part as UTF-8 text, refused past `maxBytes` (text fields are small). */
  text(maxBytes: number): Promise<string>;
}

export interface MultipartLimits {
  /** Parts in one body (a form with thousands of fields is an attack, not a song). */
  maxParts?: number;
  /** Bytes of one part's header block. */
  maxHeaderBytes?: number;
}

const enc = new TextEncoder();
const CRLF2 = enc.encode("\r\n\r\n");

/** The boundary named by a multipart/form-data Content-Type, if it is one. */
export function boundaryOf(contentType: string | null | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType.trim())) return undefined;
  const m = contentType.match(/;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i);
  return m?.[1] ?? m?.[2];
}

/** The first index of `needle` in `hay` at or after `from`, or -1. */
function find(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0],
    last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Pull-based access to the body: bytes before a delimiter, or a few bytes ahead. */
class Scanner {
  private pos = 0;
  private ended = false;
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private buf: Uint8Array,
  ) {}

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    const rest = this.buf.subarray(this.pos);
    if (!rest.length) this.buf = value;
    else {
      // Only the few bytes that might begin a delimiter are ever carried over.
      const b = new Uint8Array(rest.length + value.length);
      b.set(rest);
      b.set(value, rest.length);
      this.buf = b;
    }
    this.pos = 0;
    return true;
  }

  /** The next `n` bytes without consuming them. */
  async peek(n: number): Promise<Uint8Array> {
    while (this.buf.length - this.pos < n)
      if (!(await this.fill())) throw new MultipartError(LIB_MSG.multipartEndsEarly);
    return this.buf.subarray(this.pos, this.pos + n);
  }

  /** Yields the bytes before `delim`, then consumes `delim`. Views stay valid: buffers are never reused. */
  async *until(delim: Uint8Array): AsyncGenerator<Uint8Array> {
    for (;;) {
      const i = find(this.buf, delim, this.pos);
      if (i >= 0) {
        const chunk = this.buf.subarray(this.pos, i);
        this.pos = i + delim.length;
        if (chunk.length) yield chunk;
        return;
      }
      // Everything but a tail that could be the start of the delimiter is part data.
      const safe = this.buf.length - delim.length + 1;
      if (safe > this.pos) {
        const chunk = this.buf.subarray(this.pos, safe);
        this.pos = safe;
        yield chunk;
      }
      if (!(await this.fill())) throw new MultipartError(LIB_MSG.multipartUnclosedPart);
    }
  }

  async cancel() {
    await this.reader.cancel().catch(() => undefined);
  }
}

function parseHeaders(block: string) {
  const headers = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MultipartError(LIB_MSG.multipartHeaderNoName);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  if (!/^form-data\s*(;|$)/i.test(disposition))
    throw new MultipartError(LIB_MSG.multipartNotFormData);
  const params = new Map<string, string>();
  for (const m of disposition.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    params.set(m[1].toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3].trim());
  }
  const name = params.get("name");
  if (name === undefined) throw new MultipartError(LIB_MSG.multipartPartNoName);
  return { name, filename: params.get("filename"), contentType: headers.get("content-type") };
}

async function collect(
  chunks: AsyncIterable<Uint8Array>,
  max: number,
  tooLong: () => Error,
): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  let size = 0;
  for await (const c of chunks) {
    size += c.length;
    if (size > max) throw tooLong();
    out.push(c);
  }
  const b = new Uint8Array(size);
  let at = 0;
  for (const c of out) {
    b.set(c, at);
    at += c.length;
  }
  return b;
}

/**
 * The parts of a multipart body, in order. Throws `MultipartError` on a malformed body; an
 * error from the stream itself (a client that went away) passes through unchanged.
 * Stopping early (break, throw) cancels the body.
 */
export async function* readParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  limits: MultipartLimits = {},
): AsyncGenerator<Part> {
  const maxParts = limits.maxParts ?? 100;
  const maxHeaderBytes = limits.maxHeaderBytes ?? 8 * 1024;
  const delim = enc.encode(`\r\n--${boundary}`);
  // A virtual CRLF before the body makes the first boundary look like every other one.
  const scanner = new Scanner(body.getReader(), enc.encode("\r\n"));
  let finished = false;
  try {
    for await (const _ of scanner.until(delim)); // the preamble, which carries nothing
    for (let count = 0; ; count++) {
      const after = await scanner.peek(2);
      if (after[0] === 0x2d && after[1] === 0x2d) break; // "--": the closing boundary; the epilogue is ignored
      if (count >= maxParts) throw new MultipartError(LIB_MSG.multipartTooManyParts(maxParts));
      // The header block runs from this CRLF to the blank line (an empty block is just the CRLF).
      const tooLong = () => new MultipartError(LIB_MSG.multipartHeadersTooLong);
      const head = await collect(scanner.until(CRLF2), maxHeaderBytes, tooLong);
      if (head.length && (head[0] !== 0x0d || head[1] !== 0x0a))
        throw new MultipartError(LIB_MSG.multipartNoLineBreak);
      const info = parseHeaders(new TextDecoder().decode(head.subarray(2)));
      let used = false;
      let drained = false;
      const chunks = async function* () {
        if (used) throw new Error("Part.chunks() called twice");
        used = true;
        for await (const c of scanner.until(delim)) yield c;
        drained = true;
      };
      yield {
        ...info,
        chunks,
        text: async (maxBytes: number) =>
          new TextDecoder().decode(
            await collect(
              chunks(),
              maxBytes,
              () => new MultipartError(LIB_MSG.fieldTooLong(info.name, maxBytes)),
            ),
          ),
      };
      if (!drained) for await (const _ of scanner.until(delim));
    }
    finished = true;
  } finally {
    if (!finished) await scanner.cancel();
  }
}

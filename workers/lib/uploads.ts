import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors";
import { LIB_MSG } from "./messages";

/**
 * R2 uploads, written once (DESIGN.md, "Plumbing written once"): a type allow-list checked
 * against the file's first bytes (a name or a declared type is only what the client says),
 * a size cap enforced before and after the multipart body is read, the put with its HTTP
 * metadata, and serving an object back with ETag, Range and If-None-Match.
 *
 * @example
 *   app.post("/x", uploadBodyLimit(5 * MB), valid("form", schema), async (c) => {
 *     const stored = await storeUpload(c.env.UPLOADS, key, c.req.valid("form").file, { allow: IMAGE_TYPES, maxBytes: 5 * MB });
 *   });
 */

export const MB = 1024 * 1024;

/** For bytes under a key that never names other bytes: caches may keep them for a year. */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

/** ISO media brands iTunes, ffmpeg and phones write for AAC/ALAC audio in an MP4 box. */
const M4A_BRANDS = ["M4A ", "M4B ", "mp41", "mp42", "isom", "iso2", "dash"];

/** Magic numbers of the types we accept anywhere; more can be added as services need them. */
const SIGNATURES = {
  "image/jpeg": { label: "JPEG", test: (b: Uint8Array) => starts(b, [0xff, 0xd8, 0xff]) },
  "image/png": {
    label: "PNG",
    test: (b: Uint8Array) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  "image/gif": {
    label: "GIF",
    test: (b: Uint8Array) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a"),
  },
  "image/webp": {
    label: "WebP",
    test: (b: Uint8Array) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"),
  },
  "audio/wav": {
    label: "WAV",
    test: (b: Uint8Array) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE"),
  },
  "audio/ogg": { label: "Ogg", test: (b: Uint8Array) => ascii(b, 0, "OggS") },
  "audio/flac": { label: "FLAC", test: (b: Uint8Array) => ascii(b, 0, "fLaC") },
  "audio/mp4": {
    label: "M4A",
    test: (b: Uint8Array) => ascii(b, 4, "ftyp") && M4A_BRANDS.some((brand) => ascii(b, 8, brand)),
  },
  // An ID3 tag, or an MPEG audio frame sync (11 set bits) with a real version and Layer III
  // at the very start (ADTS AAC also starts with 0xFFF, but with layer bits 00).
  "audio/mpeg": {
    label: "MP3",
    test: (b: Uint8Array) =>
      ascii(b, 0, "ID3") ||
      (b.length > 1 &&
        b[0] === 0xff &&
        (b[1] & 0xe0) === 0xe0 &&
        (b[1] & 0x18) !== 0x08 &&
        (b[1] & 0x06) === 0x02),
  },
} as const;
export type MediaType = keyof typeof SIGNATURES;

export const IMAGE_TYPES = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/gif",
] as const satisfies readonly MediaType[];
/** Song uploads (upload-service): MP3 plays as is, the others through a transcoded MP3. */
export const AUDIO_TYPES = [
  "audio/mpeg",
  "audio/wav",
  "audio/flac",
  "audio/ogg",
  "audio/mp4",
] as const satisfies readonly MediaType[];
/** How many leading bytes `sniffType` looks at (a streaming reader collects this many first). */
export const SNIFF_BYTES = 16;

function starts(b: Uint8Array, sig: number[]) {
  return b.length >= sig.length && sig.every((v, i) => b[i] === v);
}
function ascii(b: Uint8Array, at: number, s: string) {
  return b.length >= at + s.length && [...s].every((ch, i) => b[at + i] === ch.charCodeAt(0));
}

/** A type's short name for messages ("MP3", "FLAC"). */
export const typeLabel = (t: MediaType) => SIGNATURES[t].label;

/** What the bytes are, whatever the client called them. */
export function sniffType(head: Uint8Array): MediaType | undefined {
  return (Object.keys(SIGNATURES) as MediaType[]).find((t) => SIGNATURES[t].test(head));
}

// Common aliases browsers and tools declare for the same thing.
const ALIASES: Record<string, MediaType> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "audio/mp3": "audio/mpeg",
  "audio/x-wav": "audio/wav",
  "audio/x-m4a": "audio/mp4",
  "audio/x-flac": "audio/flac",
};
const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream"]);

export interface UploadRules {
  allow: readonly MediaType[];
  maxBytes: number;
  /** The form field's name, for messages. */
  field?: string;
}

export const formatBytes = (n: number) =>
  n % MB === 0 ? `${n / MB} MB` : n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
const typeList = (allow: readonly MediaType[]) => {
  const labels = allow.map((t) => SIGNATURES[t].label);
  return labels.length > 1
    ? `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`
    : labels[0];
};
export const unsupportedTypeMessage = (r: UploadRules) =>
  `${r.field ?? "file"} must be a ${typeList(r.allow)} file.`;
export const tooLargeMessage = (r: UploadRules) =>
  `${r.field ?? "file"} must be at most ${formatBytes(r.maxBytes)}.`;

/**
 * Checks a file against the rules: 400 when empty, 413 when too big, 415 when its declared
 * type is outside the list or its bytes are not one of the allowed types. Answers the type
 * the bytes show, which is what we store and serve (never the client's word).
 */
export async function checkUpload(file: Blob, rules: UploadRules): Promise<MediaType> {
  const field = rules.field ?? "file";
  if (file.size === 0) throw new ApiError(400, LIB_MSG.fieldEmpty(field));
  if (file.size > rules.maxBytes) throw new ApiError(413, tooLargeMessage(rules));
  const declared = file.type.split(";")[0].trim().toLowerCase();
  const normal = ALIASES[declared] ?? declared;
  if (!GENERIC.has(normal) && !rules.allow.includes(normal as MediaType))
    throw new ApiError(415, unsupportedTypeMessage(rules));
  const sniffed = sniffType(new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer()));
  if (!sniffed || !rules.allow.includes(sniffed))
    throw new ApiError(415, unsupportedTypeMessage(rules));
  return sniffed;
}

export interface StoredUpload {
  key: string;
  size: number;
  contentType: MediaType;
}

/**
 * Checks the file, then puts it in R2 under `key` with its sniffed Content-Type. The Blob is
 * handed to R2 as is, so the bytes stream from the parsed form without another copy.
 */
export async function storeUpload(
  bucket: R2Bucket,
  key: string,
  file: Blob,
  rules: UploadRules,
  meta: { cacheControl?: string; customMetadata?: Record<string, string> } = {},
): Promise<StoredUpload> {
  const contentType = await checkUpload(file, rules);
  await bucket.put(key, file, {
    httpMetadata: { contentType, cacheControl: meta.cacheControl },
    customMetadata: meta.customMetadata,
  });
  return { key, size: file.size, contentType };
}

/** The multipart envelope (boundaries, part headers, other small fields) on top of the file. */
export const MULTIPART_SLACK = 64 * 1024;

/**
 * Route middleware: refuse a body that cannot hold an acceptable file before reading it
 * (413 from Content-Length, or while counting a chunked body), so a huge upload is never
 * buffered. The exact file size is checked again by `checkUpload`.
 */
export const uploadBodyLimit = (rules: UploadRules) =>
  bodyLimit({
    maxSize: rules.maxBytes + MULTIPART_SLACK,
    onError: () => {
      throw new ApiError(413, tooLargeMessage(rules));
    },
  });

/** A single `bytes=` range, resolved against `size`; undefined means "send it all". */
export function parseRange(
  header: string | undefined,
  size: number,
): { offset: number; length: number } | "unsatisfiable" | undefined {
  // Malformed or multi-part ranges are ignored (RFC 9110 lets a server send the whole thing).
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { offset: start, length: end - start + 1 };
}

function etagMatches(ifNoneMatch: string | undefined, etag: string) {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}

/**
 * Answers an R2 object: 304 when If-None-Match names `etag` (no R2 read at all), 206 with
 * Content-Range for one satisfiable byte range, 416 for an unsatisfiable one, else 200.
 * `size` and `etag` come from our own record, so a revalidation costs no R2 call.
 */
export async function serveUpload(
  req: Request,
  bucket: R2Bucket,
  file: { key: string; size: number; contentType: string; etag: string; cacheControl: string },
  notFoundMessage: string,
): Promise<Response> {
  const headers = new Headers({
    ETag: file.etag,
    "Cache-Control": file.cacheControl,
    "Accept-Ranges": "bytes",
    "Content-Type": file.contentType,
    "X-Content-Type-Options": "nosniff",
  });
  if (etagMatches(req.headers.get("If-None-Match") ?? undefined, file.etag))
    return new Response(null, { status: 304, headers });
  // If-Range with another validator means the client's partial copy is stale: send it all.
  const ifRange = req.headers.get("If-Range");
  const range =
    ifRange && ifRange !== file.etag
      ? undefined
      : parseRange(req.headers.get("Range") ?? undefined, file.size);
  if (range === "unsatisfiable")
    throw new ApiError(416, LIB_MSG.rangeNotSatisfiable(file.size), {
      "Content-Range": `bytes */${file.size}`,
    });
  const object = await bucket.get(file.key, range ? { range } : undefined);
  if (!object) throw new ApiError(404, notFoundMessage);
  if (range) {
    headers.set(
      "Content-Range",
      `bytes ${range.offset}-${range.offset + range.length - 1}/${file.size}`,
    );
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(object.size));
  return new Response(object.body, { status: 200, headers });
}

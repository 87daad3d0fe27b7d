/**
 * ID3v2 pieces the streaming MP3 indexer (mp3.ts) needs: the tag header, frame headers, and
 * the text frames that name a song. Pure functions over small byte slices: the indexer
 * decides what to keep, so a tag with megabytes of cover art is skipped, never buffered.
 * Versions 2.2 (three-letter ids), 2.3 and 2.4; text in ISO-8859-1, UTF-16 (BOM), UTF-16BE
 * and UTF-8. Decoded by hand so no runtime's TextDecoder label support matters.
 */

/** What a song's tag can tell us; every field optional. */
export interface Id3Tags {
  title?: string;
  artist?: string;
  album?: string;
  genre?: string;
  year?: number;
}

export interface Id3Header {
  version: 2 | 3 | 4;
  /** Bytes from the file's start to the end of the tag (header, frames, padding, footer). */
  tagEnd: number;
  /** Where frames may end (the footer, if any, is not frames). */
  framesEnd: number;
  flags: number;
  /** The frames cannot be walked reliably (v2.3 whole-tag unsynchronisation, v2.2 compression). */
  opaque: boolean;
  extendedHeader: boolean;
}

/** The first 10 bytes of a file, if they open an ID3v2 tag. */
export function parseId3Header(b: Uint8Array): Id3Header | undefined {
  if (b.length < 10 || b[0] !== 0x49 || b[1] !== 0x44 || b[2] !== 0x33) return undefined;
  const version = b[3];
  if (version < 2 || version > 4 || b[4] === 0xff || [6, 7, 8, 9].some((i) => b[i] & 0x80))
    return undefined;
  const flags = b[5];
  const size = syncsafe(b, 6);
  const footer = version === 4 && flags & 0x10 ? 10 : 0;
  return {
    version: version as 2 | 3 | 4,
    tagEnd: 10 + size + footer,
    framesEnd: 10 + size,
    flags,
    // v2.3 unsynchronises the whole tag with frame sizes counted before it, and v2.2's
    // compression is undefined: rare enough that we skip such tags rather than guess.
    opaque: (version === 3 && (flags & 0x80) !== 0) || (version === 2 && (flags & 0x40) !== 0),
    extendedHeader: version > 2 && (flags & 0x40) !== 0,
  };
}

/** The extended header's total length from its first 4 bytes (v2.3 excludes the size field, v2.4 includes it). */
export function extendedHeaderLength(version: number, b: Uint8Array): number {
  return version === 4 ? syncsafe(b, 0) : u32(b, 0) + 4;
}

export const frameHeaderLength = (version: number) => (version === 2 ? 6 : 10);

export interface Id3FrameHeader {
  id: string;
  size: number;
  /** The frame's format flags (second flag byte; 0 for v2.2). */
  format: number;
}

/** A frame header, or undefined at padding or garbage (the rest of the tag is then skipped). */
export function parseFrameHeader(version: number, b: Uint8Array): Id3FrameHeader | undefined {
  const idLength = version === 2 ? 3 : 4;
  let id = "";
  for (let i = 0; i < idLength; i++) {
    const ch = b[i];
    if (!((ch >= 0x41 && ch <= 0x5a) || (ch >= 0x30 && ch <= 0x39))) return undefined;
    id += String.fromCharCode(ch);
  }
  const size =
    version === 2 ? (b[3] << 16) | (b[4] << 8) | b[5] : version === 3 ? u32(b, 4) : syncsafe(b, 4);
  return { id, size, format: version === 2 ? 0 : b[9] };
}

/** Text frames we read, by id (v2.2 and v2.3/2.4 names). */
const WANTED: Record<string, keyof Id3Tags> = {
  TIT2: "title",
  TPE1: "artist",
  TALB: "album",
  TCON: "genre",
  TYER: "year",
  TDRC: "year",
  TT2: "title",
  TP1: "artist",
  TAL: "album",
  TCO: "genre",
  TYE: "year",
};
/** Text frames are short; anything longer is not a name and is skipped, not buffered. */
export const MAX_TEXT_FRAME = 16 * 1024;

/** Whether a frame is one we decode (a wanted id, small, neither compressed nor encrypted). */
export function wantsFrame(version: number, f: Id3FrameHeader): boolean {
  if (!(f.id in WANTED) || f.size === 0 || f.size > MAX_TEXT_FRAME) return false;
  const packed = version === 3 ? f.format & 0xc0 : version === 4 ? f.format & 0x0c : 0;
  return packed === 0;
}

/** Decodes one wanted frame's body into `tags` (a first value wins: later duplicates are ignored). */
export function readTextFrame(
  version: number,
  header: Id3Header,
  f: Id3FrameHeader,
  raw: Uint8Array,
  tags: Id3Tags,
): void {
  let body = raw;
  if (version === 3 && f.format & 0x20) body = body.subarray(1); // grouping id
  if (version === 4) {
    if (f.format & 0x40) body = body.subarray(1); // grouping id
    if (f.format & 0x01) body = body.subarray(4); // data length indicator
    if (f.format & 0x02 || header.flags & 0x80) body = resync(body);
  }
  if (body.length < 2) return;
  const values = decodeStrings(body[0], body.subarray(1));
  const field = WANTED[f.id];
  if (tags[field] !== undefined || !values.length) return;
  if (field === "year") {
    const m = values[0].match(/^(\d{4})/);
    if (m) tags.year = Number(m[1]);
  } else {
    const text = (field === "genre" ? values.map(genreName) : values).join("/").trim();
    if (text) tags[field] = text;
  }
}

/** Undoes unsynchronisation: every 0xFF 0x00 pair was a lone 0xFF. */
function resync(b: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    out.push(b[i]);
    if (b[i] === 0xff && b[i + 1] === 0x00) i++;
  }
  return new Uint8Array(out);
}

/** The strings of a text frame (v2.4 separates several values with a terminator). */
function decodeStrings(encoding: number, b: Uint8Array): string[] {
  let text: string;
  if (encoding === 1 || encoding === 2) {
    let le = encoding === 1; // v2.3 requires a BOM; without one, assume the common little-endian
    const units: number[] = [];
    for (let i = 0; i + 1 < b.length; i += 2) {
      const hi = b[i],
        lo = b[i + 1];
      if (hi === 0xff && lo === 0xfe) {
        le = true;
        continue;
      }
      if (hi === 0xfe && lo === 0xff) {
        le = false;
        continue;
      }
      units.push(le ? hi | (lo << 8) : (hi << 8) | lo);
    }
    text = String.fromCharCode(...units);
  } else if (encoding === 3) {
    text = new TextDecoder("utf-8").decode(b);
  } else {
    text = String.fromCharCode(...b); // ISO-8859-1 maps byte n to code point n
  }
  return text
    .split("\u0000")
    .map((s) => s.replace(/^\uFEFF/, "").trim())
    .filter(Boolean);
}

/** The ID3v1 genre list (0-79), which TCON may name by number: "17", "(17)" or "(17)Rock". */
const GENRES = (
  "Blues,Classic Rock,Country,Dance,Disco,Funk,Grunge,Hip-Hop,Jazz,Metal,New Age,Oldies,Other,Pop,R&B,Rap,Reggae,Rock,Techno," +
  "Industrial,Alternative,Ska,Death Metal,Pranks,Soundtrack,Euro-Techno,Ambient,Trip-Hop,Vocal,Jazz+Funk,Fusion,Trance,Classical," +
  "Instrumental,Acid,House,Game,Sound Clip,Gospel,Noise,AlternRock,Bass,Soul,Punk,Space,Meditative,Instrumental Pop,Instrumental Rock," +
  "Ethnic,Gothic,Darkwave,Techno-Industrial,Electronic,Pop-Folk,Eurodance,Dream,Southern Rock,Comedy,Cult,Gangsta,Top 40,Christian Rap," +
  "Pop/Funk,Jungle,Native American,Cabaret,New Wave,Psychedelic,Rave,Showtunes,Trailer,Lo-Fi,Tribal,Acid Punk,Acid Jazz,Polka,Retro," +
  "Musical,Rock & Roll,Hard Rock"
).split(",");

function genreName(v: string): string {
  const m = v.match(/^\((\d+)\)(.*)$/) ?? v.match(/^(\d+)()$/);
  if (!m) return v;
  return m[2].trim() || GENRES[Number(m[1])] || v;
}

function syncsafe(b: Uint8Array, at: number) {
  return (
    ((b[at] & 0x7f) << 21) |
    ((b[at + 1] & 0x7f) << 14) |
    ((b[at + 2] & 0x7f) << 7) |
    (b[at + 3] & 0x7f)
  );
}
function u32(b: Uint8Array, at: number) {
  return ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);
}

import type { PhotonImage } from "@cf-wasm/photon";
import { ApiError, badRequest } from "./errors";
import { lazyModule } from "./lazy-module";
import { LIB_MSG } from "./messages";

/**
 * Raster images, decoded and encoded again by photon (WASM), so what we store and serve is
 * only pixels: EXIF (GPS position, camera serial, time), XMP, ICC, comments, PNG text
 * chunks and anything appended after the image never survive (docs/DECISIONS.md,
 * "Accounts and sessions": profile pictures). A JPEG's EXIF orientation is applied first,
 * so a phone photo stays upright once its metadata is gone.
 */

/**
 * photon, loaded (and its WASM instantiated) on the first image decoded, after the header
 * checks passed (lib/lazy-module.ts): every image path here and in merch-service shares it.
 */
export const loadPhoton = lazyModule(() => import("@cf-wasm/photon"));

export type RasterType = "image/png" | "image/jpeg" | "image/webp" | "image/gif";

/** Width and height from the file's header, before any decoding (undefined: unreadable). */
export function rasterSize(
  b: Uint8Array,
  type: RasterType,
): { width: number; height: number } | undefined {
  const u16be = (i: number) => (b[i] << 8) | b[i + 1];
  const u32be = (i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
  if (type === "image/gif")
    return b.length >= 10 ? { width: b[6] | (b[7] << 8), height: b[8] | (b[9] << 8) } : undefined;
  if (type === "image/png")
    return b.length >= 24 ? { width: u32be(16), height: u32be(20) } : undefined;
  if (type === "image/webp") {
    const chunk = String.fromCharCode(...b.slice(12, 16));
    if (chunk === "VP8 " && b.length >= 30)
      return { width: (b[26] | (b[27] << 8)) & 0x3fff, height: (b[28] | (b[29] << 8)) & 0x3fff };
    if (chunk === "VP8L" && b.length >= 25) {
      const bits = (b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24)) >>> 0;
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X" && b.length >= 30)
      return {
        width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)),
        height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)),
      };
    return undefined;
  }
  if (type === "image/jpeg") {
    // Walk the marker segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG, DAC).
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const m = b[i + 1];
      if (m === 0xff) {
        i++;
        continue;
      }
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc)
        return { height: u16be(i + 5), width: u16be(i + 7) };
      if (m === 0xd8 || m === 0x01 || (m >= 0xd0 && m <= 0xd7)) i += 2;
      else i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

/**
 * The EXIF orientation (1..8) of a JPEG: the Orientation tag (0x0112) of IFD0 in its APP1
 * "Exif" segment; 1 (as stored) when absent or unreadable. Reads headers only.
 */
export function jpegOrientation(b: Uint8Array): number {
  if (b[0] !== 0xff || b[1] !== 0xd8) return 1;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return 1;
    const m = b[i + 1];
    if (m === 0xff) {
      i++;
      continue;
    }
    // Start of scan or end of image: the metadata segments are all before it.
    if (m === 0xda || m === 0xd9) return 1;
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) {
      i += 2;
      continue;
    }
    const end = i + 2 + ((b[i + 2] << 8) | b[i + 3]);
    if (end > b.length || end < i + 4) return 1;
    const exif = [0x45, 0x78, 0x69, 0x66, 0, 0]; // "Exif\0\0"
    if (m === 0xe1 && exif.every((v, k) => b[i + 4 + k] === v))
      return tiffOrientation(b.subarray(i + 10, end));
    i = end;
  }
  return 1;
}

function tiffOrientation(t: Uint8Array): number {
  const le = t[0] === 0x49 && t[1] === 0x49; // "II": little-endian; "MM": big-endian
  if (t.length < 8 || (!le && !(t[0] === 0x4d && t[1] === 0x4d))) return 1;
  const u16 = (o: number) => (le ? t[o] | (t[o + 1] << 8) : (t[o] << 8) | t[o + 1]);
  const u32 = (o: number) =>
    (le
      ? t[o] | (t[o + 1] << 8) | (t[o + 2] << 16) | (t[o + 3] << 24)
      : (t[o] << 24) | (t[o + 1] << 16) | (t[o + 2] << 8) | t[o + 3]) >>> 0;
  if (u16(2) !== 42) return 1;
  const ifd = u32(4);
  if (ifd + 2 > t.length) return 1;
  for (let k = 0, n = u16(ifd); k < n; k++) {
    const e = ifd + 2 + k * 12;
    if (e + 12 > t.length) return 1;
    if (u16(e) === 0x0112) {
      const v = u16(e + 8);
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

/** For an output pixel (x, y) of an upright image, the stored pixel, per EXIF orientation. */
const STORED_PIXEL: Record<
  number,
  (x: number, y: number, w: number, h: number) => [number, number]
> = {
  2: (x, y, w) => [w - 1 - x, y], // mirrored
  3: (x, y, w, h) => [w - 1 - x, h - 1 - y], // turned 180°
  4: (x, y, _w, h) => [x, h - 1 - y], // mirrored vertically
  5: (x, y) => [y, x], // transposed
  6: (x, y, _w, h) => [y, h - 1 - x], // to turn 90° clockwise
  7: (x, y, w, h) => [w - 1 - y, h - 1 - x], // transversed
  8: (x, y, w) => [w - 1 - y, x], // to turn 90° counter-clockwise
};

/**
 * RGBA pixels turned upright for an EXIF orientation. Done here on the raw pixels, because
 * photon's `rotate` is for arbitrary angles and garbles non-square images at 90 and 180.
 */
export function uprightPixels(
  px: Uint8Array,
  w: number,
  h: number,
  orientation: number,
): { px: Uint8Array; width: number; height: number } {
  if (orientation <= 1 || orientation > 8) return { px, width: w, height: h };
  const swap = orientation >= 5;
  const [W, H] = swap ? [h, w] : [w, h];
  const src = new Uint32Array(px.buffer, px.byteOffset, w * h);
  const out = new Uint32Array(w * h);
  const from = STORED_PIXEL[orientation];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const [sx, sy] = from(x, y, w, h);
      out[y * W + x] = src[sy * w + sx];
    }
  return { px: new Uint8Array(out.buffer), width: W, height: H };
}

export interface ReencodeRules {
  /** Longest side accepted (a bigger image is refused before it is decoded). */
  maxSide: number;
  /** Most pixels accepted: decoding costs 4 bytes each of the isolate's 128 MB. */
  maxPixels: number;
  /** Longest side stored: bigger images are scaled down (aspect kept). */
  storeSide: number;
  /** Largest encoded result; a PNG or WebP above it is stored as JPEG instead. */
  maxBytes: number;
}

/**
 * Decodes `bytes` (of sniffed `type`) and encodes the pixels again, without any metadata:
 * JPEG stays JPEG (quality 85), PNG and WebP keep their format (lossless, alpha kept), a GIF
 * becomes a PNG of its first frame. 400 for an image that cannot be read or is too large.
 */
export async function reencodeImage(
  bytes: Uint8Array,
  type: RasterType,
  rules: ReencodeRules,
): Promise<{ bytes: Uint8Array; contentType: "image/png" | "image/jpeg" | "image/webp" }> {
  const dims = rasterSize(bytes, type);
  if (!dims || dims.width === 0 || dims.height === 0) throw badRequest(LIB_MSG.imageUnreadable);
  if (
    dims.width > rules.maxSide ||
    dims.height > rules.maxSide ||
    dims.width * dims.height > rules.maxPixels
  )
    throw badRequest(LIB_MSG.imageTooLarge(rules.maxSide, rules.maxPixels, dims));
  const { PhotonImage, resize, SamplingFilter } = await loadPhoton();
  let img: PhotonImage;
  try {
    img = PhotonImage.new_from_byteslice(bytes);
  } catch {
    throw badRequest(LIB_MSG.imageUnreadable);
  }
  try {
    const w = img.get_width();
    const h = img.get_height();
    const scale = Math.min(1, rules.storeSide / Math.max(w, h));
    if (scale < 1) {
      const small = resize(
        img,
        Math.max(1, Math.round(w * scale)),
        Math.max(1, Math.round(h * scale)),
        SamplingFilter.Triangle,
      );
      img.free();
      img = small;
    }
    const orientation = type === "image/jpeg" ? jpegOrientation(bytes) : 1;
    if (orientation !== 1) {
      const up = uprightPixels(
        img.get_raw_pixels(),
        img.get_width(),
        img.get_height(),
        orientation,
      );
      img.free();
      img = new PhotonImage(up.px, up.width, up.height);
    }
    if (type === "image/webp") {
      const out = img.get_bytes_webp();
      if (out.length <= rules.maxBytes) return { bytes: out, contentType: "image/webp" };
    } else if (type !== "image/jpeg") {
      const out = img.get_bytes();
      if (out.length <= rules.maxBytes) return { bytes: out, contentType: "image/png" };
    }
    const jpeg = img.get_bytes_jpeg(85);
    if (jpeg.length > rules.maxBytes)
      throw new ApiError(413, LIB_MSG.imageTooHeavy(rules.maxBytes));
    return { bytes: jpeg, contentType: "image/jpeg" };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(LIB_MSG.imageUnreadable);
  } finally {
    img.free();
  }
}

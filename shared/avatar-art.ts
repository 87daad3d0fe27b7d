/**
 * Art for an avatar that has none (UI.md: "Avatars without art are drawn from their slug,
 * never a broken image"). The same slug gives the same picture on the server (the art route
 * answers it) and in the browser (the fallback when an image fails), so both agree.
 * Only numbers derived from the slug reach the markup: no user text is ever embedded.
 */

/** FNV-1a, 32-bit: a stable spread of the slug's characters. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A 5x5 mirrored pattern on a two-tone disc, as an SVG document of `size` pixels. */
export function slugArtSvg(slug: string, size = 256): string {
  let h = fnv1a(slug || "avatar");
  const next = () => {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = (h ^ (h >>> 12)) >>> 0;
    return h;
  };
  const hue = next() % 360;
  const hue2 = (hue + 40 + (next() % 80)) % 360;
  const cells: string[] = [];
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if (next() % 2 === 0) continue;
      for (const cx of x === 2 ? [2] : [x, 4 - x])
        cells.push(
          `<rect x="${22 + cx * 11.2}" y="${22 + y * 11.2}" width="11.2" height="11.2" rx="2"/>`,
        );
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="${size}" height="${size}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue} 70% 55%)"/><stop offset="1" stop-color="hsl(${hue2} 65% 35%)"/></linearGradient></defs>` +
    `<circle cx="50" cy="50" r="50" fill="url(#g)"/>` +
    `<g fill="hsl(${hue} 90% 92%)" fill-opacity="0.9">${cells.join("")}</g>` +
    `</svg>`
  );
}

/** The same art as a `data:` URL for an `<img>`. */
export const slugArtDataUrl = (slug: string) =>
  `data:image/svg+xml;utf8,${encodeURIComponent(slugArtSvg(slug))}`;

/** Thumbnail sizes (seed 000: 128, 256 by default, 500, 1024). */
export const AVATAR_SIZES = [128, 256, 500, 1024] as const;
export type AvatarSize = (typeof AVATAR_SIZES)[number];
export const DEFAULT_AVATAR_SIZE: AvatarSize = 256;

import { AVATAR_SIZES, slugArtDataUrl } from "../../../shared/avatar-art";
import { useImageFallback } from "~/hooks/useImageFallback";

/** Where the merch-service serves an avatar's art (workers/merch-service/avatar-art.ts). */
export const avatarArtUrl = (slug: string, px: number, version?: string | null) => {
  // The smallest thumbnail that stays sharp on a 2x screen.
  const size = AVATAR_SIZES.find((s) => s >= px * 2) ?? AVATAR_SIZES[AVATAR_SIZES.length - 1];
  const q = new URLSearchParams({ size: String(size) });
  if (version) q.set("v", version);
  return `/api/merch-service/avatars/${encodeURIComponent(slug)}/image?${q}`;
};

interface Props {
  slug: string;
  /** Pixels; the art is square and round. */
  size?: number;
  /** Alt text; empty (the default) when a name is printed beside it. */
  alt?: string;
  /** The art's URL when known (it carries the upload's version); else built from the slug. */
  src?: string | null;
  className?: string;
}

/**
 * An avatar's art. If it fails to load (an avatar deleted since the page was drawn, the
 * network) the pattern drawn from the slug takes its place: never a broken image.
 */
export function AvatarArt({ slug, size = 40, alt = "", src, className = "" }: Props) {
  const url = src ?? avatarArtUrl(slug, size);
  const { ref, failed, onError } = useImageFallback(url);
  return (
    <img
      ref={ref}
      src={failed ? slugArtDataUrl(slug) : url}
      alt={alt}
      width={size}
      height={size}
      style={{ width: size, height: size }}
      decoding="async"
      data-avatar={slug}
      onError={failed ? undefined : onError}
      className={`shrink-0 rounded-full bg-panel object-cover ring-2 ring-white/15 ${className}`}
    />
  );
}

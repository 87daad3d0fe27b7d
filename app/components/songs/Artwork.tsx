import { Music } from "lucide-react";
import { useImageFallback } from "~/hooks/useImageFallback";
import { artworkUrl, hueOf, type AnySong } from "~/lib/songs";

interface Props {
  song: Pick<AnySong, "thumbnails" | "trackName" | "artistName"> | null;
  /** Pixels (square). */
  size?: number;
  className?: string;
  /** Rounded corners class. */
  rounded?: string;
}

/**
 * A song's cover: its thumbnail, or (none, or it fails to load) a gradient tile drawn from
 * the title with a note on it. Never a broken image. Decorative: the title is printed beside it.
 */
export function Artwork({ song, size = 48, className = "", rounded = "rounded-lg" }: Props) {
  const src = artworkUrl(song);
  const { ref, failed, onError } = useImageFallback(src);
  const style = { width: size, height: size };
  if (src && !failed) {
    return (
      <img
        ref={ref}
        src={src}
        alt=""
        width={size}
        height={size}
        loading="lazy"
        style={style}
        onError={onError}
        className={`shrink-0 bg-panel object-cover ring-1 ring-white/10 ${rounded} ${className}`}
      />
    );
  }
  return (
    <GradientTile
      seed={`${song?.trackName ?? ""}·${song?.artistName ?? ""}`}
      size={size}
      className={className}
      rounded={rounded}
    />
  );
}

/** The generated tile: two hues from the seed, a soft light, and a note. */
export function GradientTile({
  seed,
  hue,
  size = 48,
  className = "",
  rounded = "rounded-lg",
}: {
  seed: string;
  hue?: number;
  size?: number;
  className?: string;
  rounded?: string;
}) {
  const h = hue ?? hueOf(seed || "?");
  const h2 = (h + 55) % 360;
  return (
    <span
      aria-hidden
      data-testid="artwork-generated"
      className={`grid shrink-0 place-items-center ring-1 ring-white/10 ${rounded} ${className}`}
      style={{
        width: size,
        height: size,
        background: `radial-gradient(circle at 30% 25%, hsl(${h2} 90% 70% / 0.55), transparent 60%), linear-gradient(135deg, hsl(${h} 75% 45%), hsl(${h2} 80% 30%))`,
      }}
    >
      <Music
        className="text-white/85"
        style={{ width: Math.max(14, size * 0.38), height: Math.max(14, size * 0.38) }}
      />
    </span>
  );
}

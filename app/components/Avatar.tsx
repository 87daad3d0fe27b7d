import { useId } from "react";
import { useImageFallback } from "~/hooks/useImageFallback";
import { textOn, userColor } from "~/lib/format";

interface AvatarProps {
  name: string;
  src?: string | null;
  color?: string | null;
  /** Pixels; the avatar is square and round. */
  size?: number;
  /** Alt text; empty (the default) when the name is printed next to the avatar. */
  alt?: string;
  className?: string;
}

/**
 * A user's picture, or, when there is none or it fails to load, their initial drawn on
 * their colour as an SVG. Never a broken image.
 */
export function Avatar({ name, src, color, size = 40, alt = "", className = "" }: AvatarProps) {
  const { ref, failed, onError } = useImageFallback(src);

  const style = { width: size, height: size };
  const ring = `shrink-0 rounded-full ring-2 ring-white/15 ${className}`;
  if (src && !failed) {
    return (
      <img
        ref={ref}
        src={src}
        alt={alt}
        width={size}
        height={size}
        style={style}
        className={`${ring} object-cover bg-panel`}
        onError={onError}
      />
    );
  }
  return <InitialAvatar name={name} color={color} size={size} alt={alt} className={ring} />;
}

export function InitialAvatar({
  name,
  color,
  size = 40,
  alt = "",
  className = "",
}: Omit<AvatarProps, "src">) {
  const bg = userColor(color);
  const fg = textOn(bg);
  const initial = (Array.from(name.trim())[0] ?? "?").toUpperCase();
  const gradient = `avatar-${useId().replace(/:/g, "")}`;
  return (
    <svg
      viewBox="0 0 40 40"
      width={size}
      height={size}
      className={className}
      role={alt ? "img" : undefined}
      aria-label={alt || undefined}
      aria-hidden={alt ? undefined : true}
      focusable="false"
    >
      <defs>
        <linearGradient id={gradient} x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#ffffff" stopOpacity="0.22" />
          <stop offset="1" stopColor="#000000" stopOpacity="0.18" />
        </linearGradient>
      </defs>
      <circle cx="20" cy="20" r="20" fill={bg} />
      <circle cx="20" cy="20" r="20" fill={`url(#${gradient})`} />
      <text
        x="20"
        y="20"
        dy="0.35em"
        textAnchor="middle"
        fontSize="18"
        fontWeight="700"
        fontFamily="system-ui, sans-serif"
        fill={fg}
      >
        {initial}
      </text>
    </svg>
  );
}

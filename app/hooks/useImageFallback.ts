import { useEffect, useRef, useState } from "react";

/**
 * Whether an <img> failed, so the caller can draw its stand-in instead (never a broken
 * image). An image that failed before hydration never fires onError in React, so the
 * element is checked once after each new `src`.
 *
 * @example const { ref, failed, onError } = useImageFallback(src); ... <img ref={ref} onError={onError} />
 */
export function useImageFallback(src: string | null | undefined) {
  const [failed, setFailed] = useState(false);
  const ref = useRef<HTMLImageElement>(null);
  useEffect(() => {
    setFailed(false);
    const el = ref.current;
    if (el && el.complete && el.naturalWidth === 0) setFailed(true);
  }, [src]);
  return { ref, failed, onError: () => setFailed(true) };
}

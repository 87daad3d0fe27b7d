/**
 * How an API error becomes words on the screen (spec 000, section 8): for a status below
 * 500, the server's message (the first one when it is a list), capitalised; for anything
 * else, "Something went wrong, please try again.". Shared by loaders, actions and the
 * browser (uploads go straight from the browser to the API).
 */
export const GENERIC_ERROR = "Something went wrong, please try again.";

export interface DisplayError {
  status: number;
  /** The text to show. When `generic` is true, show the translated generic text instead. */
  message: string;
  generic: boolean;
}

const capitalise = (s: string) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : s);

/** The first usable message in an error body `{statusCode, message, error}`, if any. */
function serverMessage(body: unknown): string | null {
  if (!body || typeof body !== "object") return null;
  const m = (body as { message?: unknown }).message;
  const first = Array.isArray(m) ? m.find((x) => typeof x === "string" && x.trim()) : m;
  return typeof first === "string" && first.trim() ? first.trim() : null;
}

/**
 * @example displayError(401, { statusCode: 401, message: "incorrect email or password.", error: "Unauthorized" })
 *   // → { status: 401, message: "Incorrect email or password.", generic: false }
 */
export function displayError(status: number, body: unknown): DisplayError {
  const m = status < 500 ? serverMessage(body) : null;
  return m
    ? { status, message: capitalise(m), generic: false }
    : { status, message: GENERIC_ERROR, generic: true };
}

/** A failed call made from the browser; `display` is what to show (status 0: the network). */
export class ApiError extends Error {
  constructor(public display: DisplayError) {
    super(display.message);
    this.name = "ApiError";
  }
  get status() {
    return this.display.status;
  }
}

/**
 * Words for any failure, in the page's language where the words are ours: the server's
 * message when it sent one, else the generic (or no-connection) text.
 */
export function errorText(
  err: unknown,
  t: (key: "errors.generic" | "errors.network") => string,
): string {
  if (err instanceof ApiError && err.status === 0) return t("errors.network");
  const d =
    err instanceof ApiError
      ? err.display
      : err && typeof err === "object" && "generic" in err && "message" in err
        ? (err as DisplayError)
        : null;
  return d && !d.generic ? d.message : t("errors.generic");
}

export const isAbort = (err: unknown) => (err as Error)?.name === "AbortError";

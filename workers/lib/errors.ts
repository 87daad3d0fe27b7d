import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { reportError } from "./error-reports";

/** Default texts by status, as the seeds' error catalogue names them. */
export const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** The error body every service answers with (DESIGN.md, "Conventions"). */
export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
}

/**
 * A failure a client can cause. Throw it anywhere inside a route; the app's error handler
 * turns it into the JSON error body. Anything else thrown is a bug and becomes a 500.
 *
 * @example throw new ApiError(404, "User profile not found.")
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string | string[],
    readonly headers?: Record<string, string>,
  ) {
    super(Array.isArray(body) ? body.join("; ") : body);
  }
}

export const badRequest = (m: string | string[]) => new ApiError(400, m);
export const unauthorized = (m = "Unauthorized") => new ApiError(401, m);
export const forbidden = (m = "Forbidden resource") => new ApiError(403, m);
export const notFound = (m: string) => new ApiError(404, m);
export const conflict = (m: string) => new ApiError(409, m);

export function errorBody(status: number, message: string | string[]): ErrorBody {
  return { statusCode: status, message, error: STATUS_TEXT[status] ?? "Generic Error" };
}

export function errorResponse(
  c: Context,
  status: number,
  message: string | string[],
  headers?: Record<string, string>,
) {
  return c.json(errorBody(status, message), status as ContentfulStatusCode, headers);
}

/** `app.onError` for every service: known errors keep their status, the rest are 500. */
export function onError(err: Error, c: Context) {
  if (err instanceof ApiError) return errorResponse(c, err.status, err.body, err.headers);
  if (err instanceof HTTPException) {
    // Hono's own 4xx (malformed JSON, body too large) keep their status and message.
    return errorResponse(c, err.status, err.message || STATUS_TEXT[err.status] || "Error");
  }
  console.error(`${c.req.method} ${new URL(c.req.url).pathname} failed`, err);
  // Recorded after the response (waitUntil); it never changes what the client gets.
  reportError(c, err);
  return errorResponse(c, 500, "Internal Server Error");
}

/** `app.notFound`: a missing route is told apart from a missing record by its message. */
export function onNotFound(c: Context) {
  return errorResponse(c, 404, `Cannot ${c.req.method} ${new URL(c.req.url).pathname}`);
}

/**
 * Whether a D1 failure is a UNIQUE constraint violation (a race lost to another insert).
 * drizzle wraps the driver's error ("Failed query: ..."), so the cause chain is searched.
 */
export function isUniqueViolation(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (String((e as Error).message ?? e).includes("UNIQUE constraint failed")) return true;
  }
  return false;
}

import type { AppLoadContext } from "@remix-run/cloudflare";
import { displayError, type DisplayError } from "./errors";

/** Where the user-service answers (DESIGN.md, "Gateway paths"). */
export const USER_SERVICE = "/api/user-service";

export type ApiResult<T> = ({ ok: true; data: T } | ({ ok: false } & DisplayError)) & {
  status: number;
};

export interface ApiOptions {
  method?: string;
  /** The caller's JWT; sent as `Authorization: Bearer`. */
  token?: string | null;
  /** A JSON body (sets Content-Type). */
  json?: unknown;
  /** Any other body (FormData for uploads). */
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** What a loader or action receives; the helper only needs these two. */
interface Args {
  request: Request;
  context: AppLoadContext;
}

// Headers of the browser's request worth passing on: the API rate-limits by client
// address, and may answer in the browser's language.
const FORWARDED = [
  "CF-Connecting-IP",
  "X-Forwarded-For",
  "X-Real-IP",
  "User-Agent",
  "Accept-Language",
];

/**
 * Calls our API in-process (`context.api`), parses the JSON, and turns a failure into a
 * message fit to show (spec 000, section 8). Never throws: a crash or a non-JSON answer
 * is a failure with the generic message.
 *
 * @example
 * const res = await callApi(args, `${USER_SERVICE}/auth/login`, { method: "POST", json: { email, password } });
 * if (!res.ok) return { error: res };
 */
export async function callApi<T>(
  args: Args,
  path: string,
  opts: ApiOptions = {},
): Promise<ApiResult<T>> {
  const headers = new Headers(opts.headers);
  headers.set("Accept", "application/json");
  for (const h of FORWARDED) {
    const v = args.request.headers.get(h);
    if (v && !headers.has(h)) headers.set(h, v);
  }
  if (opts.token) headers.set("Authorization", `Bearer ${opts.token}`);
  let body = opts.body;
  if (opts.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(opts.json);
  }
  const method = opts.method ?? (body === undefined ? "GET" : "POST");

  let res: Response;
  try {
    res = await args.context.api(path, { method, headers, body });
  } catch (err) {
    console.error(`API ${method} ${path} threw`, err);
    return { ok: false, ...displayError(500, null) };
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (res.ok) return { ok: false, ...displayError(502, null) };
    }
  }
  if (res.ok) return { ok: true, status: res.status, data: parsed as T };
  return { ok: false, ...displayError(res.status, parsed) };
}

/** `callApi` under the user-service base path. */
export const userApi = <T>(args: Args, path: string, opts?: ApiOptions) =>
  callApi<T>(args, `${USER_SERVICE}${path}`, opts);

/**
 * What every non-GET request to the web app (Remix actions) must pass before Remix sees it
 * (issue 13; OWASP ASVS 4.0 V4.2.2 and V13.1.3):
 *
 * - Same origin only. A form post from another site is refused with 403: the request's
 *   `Origin` must be ours, or, with no Origin, `Sec-Fetch-Site` must say same-origin. A
 *   request with neither is refused too (every browser that can be tricked into a cross-site
 *   post sends one of them; what sends neither is not a browser and has no business posting
 *   forms). `SameSite=Lax` alone leaves login CSRF and same-site subdomains open.
 * - Bodies are capped before they are read: a form post at WEB_FORM_MAX_BYTES, a multipart
 *   post (admin art, profile pictures) at WEB_UPLOAD_MAX_BYTES and only with a session
 *   cookie (the action still checks the session; this only stops an anonymous 100 MB post
 *   being held in memory). A declared Content-Length over the cap is refused before a byte is
 *   read; a chunked body is counted as it arrives and refused when it passes the cap. The
 *   body handed on is the bytes read, so Remix never reads the network itself.
 *
 * API routes (`/api/*`) honour the session cookie only from our own origin (lib/auth.ts,
 * lib/web-sessions.ts); their bodies are capped by the gateway (workers/lib/body-cap.ts).
 */
import { readCookie, sessionCookieName } from "../app/lib/cookies";
import type { Env } from "./env";
import { discordProxyOrigin, sameOrigin } from "./lib/same-origin";

/** Every form in the app is a few fields: 64 KiB is far above the longest (a room's rules). */
export const WEB_FORM_MAX_BYTES = 64 * 1024;
/** The largest file an admin or user uploads through a page (consumable files, 10 MB) + envelope. */
export const WEB_UPLOAD_MAX_BYTES = 10 * 1024 * 1024 + 64 * 1024;

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

function refuse(status: 403 | 413, message: string): Response {
  return new Response(message, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/** Reads at most `max` bytes of `body`; null when it holds more. */
async function readCapped(
  body: ReadableStream<Uint8Array>,
  max: number,
): Promise<ArrayBuffer | null> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out.buffer;
}

/**
 * Checks a request for the web app: a Response refuses it, a Request (the same one, or a copy
 * holding the capped body) goes on to Remix.
 */
export async function guardWebRequest(
  request: Request,
  env?: Pick<Env, "DISCORD_CLIENT_ID">,
): Promise<Request | Response> {
  if (SAFE.has(request.method)) return request;
  if (!sameOrigin(request, env))
    return refuse(403, "Cross-site form posts are refused. Submit the form from this site.");
  const multipart = (request.headers.get("Content-Type") ?? "")
    .toLowerCase()
    .startsWith("multipart/form-data");
  const signedIn =
    readCookie(request.headers.get("Cookie"), sessionCookieName(request.url)) !== null;
  const max = multipart && signedIn ? WEB_UPLOAD_MAX_BYTES : WEB_FORM_MAX_BYTES;
  const tooLarge = () =>
    refuse(413, `This form is too large: at most ${Math.floor(max / 1024)} KiB can be sent.`);
  const declared = Number(request.headers.get("Content-Length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) return tooLarge();
  const headers = forwardedHost(request, env);
  if (!request.body) return headers ? new Request(request, { headers }) : request;
  const bytes = await readCapped(request.body, max);
  if (bytes === null) return tooLarge();
  return new Request(request, { body: bytes, ...(headers ? { headers } : {}) });
}

/**
 * Remix refuses an action whose Origin's host is not the Host (or X-Forwarded-Host) it was
 * sent to. A post from our Discord Activity comes through Discord's proxy: its Origin is
 * `<client id>.discordsays.com` and its Host ours. The origin check above has admitted it, so
 * Remix is told the host it was posted to (X-Forwarded-Host), which is what a forwarding proxy
 * says. A client's own X-Forwarded-Host never reaches Remix: Remix's check stays Host's.
 */
function forwardedHost(request: Request, env?: Pick<Env, "DISCORD_CLIENT_ID">): Headers | null {
  const origin = request.headers.get("Origin");
  const proxy = discordProxyOrigin(env);
  if (!request.headers.has("X-Forwarded-Host") && (!proxy || origin !== proxy)) return null;
  const headers = new Headers(request.headers);
  if (proxy && origin === proxy) headers.set("X-Forwarded-Host", new URL(proxy).host);
  else headers.delete("X-Forwarded-Host");
  return headers;
}

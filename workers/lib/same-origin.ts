/**
 * Whether `request` comes from one of our own pages: its `Origin` is ours, or, with no Origin
 * (a same-origin GET fetch sends none), `Sec-Fetch-Site` says same-origin. A request with
 * neither is not from our pages: every browser that can be tricked into a cross-site request
 * sends one of them (OWASP ASVS 4.0 V4.2.2, V13.1.3). What holds a cookie session is honoured
 * only when this holds (web-guard.ts for page posts, auth.ts for API calls, room-connect.ts
 * for room sockets).
 */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("Origin");
  if (origin !== null) return origin === new URL(request.url).origin;
  return request.headers.get("Sec-Fetch-Site") === "same-origin";
}

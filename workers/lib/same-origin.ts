import type { Env } from "../env";

/**
 * The origin Discord serves our Discord Activity from (issue 16): its proxy at
 * `https://<client id>.discordsays.com` forwards every request of the Activity frame to us, so
 * a request from there comes from our own pages too. Only our own client id's subdomain counts
 * (another app's Activity is another site); null when Discord is not configured.
 */
export function discordProxyOrigin(env: Pick<Env, "DISCORD_CLIENT_ID"> | undefined): string | null {
  const id = env?.DISCORD_CLIENT_ID;
  return id && /^\d{1,25}$/.test(id) ? `https://${id}.discordsays.com` : null;
}

/**
 * Whether `request` comes from one of our own pages: its `Origin` is ours (or our Discord
 * Activity proxy's, `discordProxyOrigin`), or, with no Origin (a same-origin GET fetch sends
 * none), `Sec-Fetch-Site` says same-origin. A request with neither is not from our pages:
 * every browser that can be tricked into a cross-site request sends one of them (OWASP ASVS 4.0
 * V4.2.2, V13.1.3). What holds a cookie session is honoured only when this holds (web-guard.ts
 * for page posts, auth.ts for API calls, room-connect.ts for room sockets).
 */
export function sameOrigin(request: Request, env?: Pick<Env, "DISCORD_CLIENT_ID">): boolean {
  const origin = request.headers.get("Origin");
  if (origin !== null)
    return origin === new URL(request.url).origin || origin === discordProxyOrigin(env);
  return request.headers.get("Sec-Fetch-Site") === "same-origin";
}

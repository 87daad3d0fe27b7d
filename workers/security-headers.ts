/**
 * The headers every web response carries (issue 13; OWASP ASVS 4.0 V14.4), written once here
 * rather than per route:
 *
 * - Content-Security-Policy with a per-response nonce: the only inline scripts that run are
 *   Remix's own, which carry it (app/entry.server.tsx hands it to <Scripts>, <ScrollRestoration>
 *   and React's renderer). Script files come from our origin, plus YouTube's iframe API when a
 *   room plays a YouTube song. Styles allow inline `style` attributes (React sets them for
 *   progress bars and artwork colours; they cannot run code). Images and media may come from
 *   any https origin (catalogue artwork, provider previews) or be blob: (hls.js feeds the audio
 *   element through MediaSource). Forms post only to us, or on to Stripe's hosted pages.
 * - `frame-ancestors 'none'` (and X-Frame-Options for old browsers): no page is framed, so
 *   no clickjacking of the vote, buy or DJ buttons. The one exception is the Discord Activity
 *   (`/activity` and below, issue 16): Discord runs it in an iframe, so those pages may be
 *   framed by Discord's own origins only (its web clients and its Activity proxy), and carry
 *   no X-Frame-Options (DENY would forbid Discord too; where frame-ancestors is understood it
 *   wins anyway).
 * - `X-Content-Type-Options: nosniff`, `Referrer-Policy: strict-origin-when-cross-origin`
 *   (a room's invite link or a magic link's path never leaks to another site).
 * - HSTS over https outside development (a local http dev server must not be pinned to https).
 */
import type { Env } from "./env";

/** A fresh nonce for one response: 128 random bits, base64. */
export function makeNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

const YOUTUBE_SCRIPTS = "https://www.youtube.com https://s.ytimg.com";
const YOUTUBE_FRAMES = "https://www.youtube.com https://www.youtube-nocookie.com";
const STRIPE_PAGES = "https://checkout.stripe.com https://billing.stripe.com";
/**
 * Who may frame the Activity pages: Discord's web and desktop clients (stable, PTB, canary)
 * and its Activity proxy (`<client id>.discordsays.com`, which serves our pages to the
 * client). Nothing else: an Activity page framed by any other site does not render.
 */
export const DISCORD_FRAME_ANCESTORS =
  "https://discord.com https://ptb.discord.com https://canary.discord.com https://*.discordsays.com";

/** Where MusicKit JS comes from (issue 16): configuration, Apple's CDN, or the dev stand-in. */
export function musicKitScriptUrl(env: Pick<Env, "ENVIRONMENT" | "MUSICKIT_JS_URL">): string {
  if (env.MUSICKIT_JS_URL) return env.MUSICKIT_JS_URL;
  return env.ENVIRONMENT === "development" ? "/musickit-stand-in.js" : APPLE_MUSICKIT_URL;
}
const APPLE_MUSICKIT_URL = "https://js-cdn.music.apple.com/musickit/v3/musickit.js";
/** MusicKit JS calls Apple Music's API from the page once it has a token. */
const APPLE_MUSIC_API = "https://api.music.apple.com";

/**
 * What the Connected accounts page adds for MusicKit: its script's origin (when it is not
 * ours) and Apple Music's API. Only that page links Apple Music, so only it admits them.
 */
function musicKitSources(
  pathname: string,
  env: Pick<Env, "ENVIRONMENT" | "MUSICKIT_JS_URL">,
): { script: string; connect: string } {
  if (pathname !== "/settings/connections") return { script: "", connect: "" };
  const url = musicKitScriptUrl(env);
  if (!/^https:\/\//.test(url)) return { script: "", connect: "" };
  return { script: ` ${new URL(url).origin}`, connect: ` ${APPLE_MUSIC_API}` };
}

/** The Discord Activity's pages, the only ones that may be framed (by Discord). */
export const isActivityPath = (pathname: string) =>
  pathname === "/activity" || pathname.startsWith("/activity/");

/**
 * The policy for one response; `origin` is ours (the room socket is ws(s) to it). `discordFrame`:
 * an Activity page, which Discord's origins may frame.
 */
export function contentSecurityPolicy(
  nonce: string,
  origin: string,
  discordFrame = false,
  extra: { script: string; connect: string } = { script: "", connect: "" },
): string {
  const socket = origin.replace(/^http/, "ws");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${YOUTUBE_SCRIPTS}${extra.script}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob: https:",
    `connect-src 'self' ${socket}${extra.connect}`,
    `frame-src ${YOUTUBE_FRAMES}`,
    "worker-src 'self' blob:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    `form-action 'self' ${STRIPE_PAGES}`,
    `frame-ancestors ${discordFrame ? DISCORD_FRAME_ANCESTORS : "'none'"}`,
  ].join("; ");
}

/** Sets the headers above on a web (Remix) response. */
export function withSecurityHeaders(
  res: Response,
  request: Request,
  env: Pick<Env, "ENVIRONMENT" | "MUSICKIT_JS_URL">,
  nonce: string,
): Response {
  const url = new URL(request.url);
  const out = new Response(res.body, res);
  const h = out.headers;
  const activity = isActivityPath(url.pathname);
  h.set(
    "Content-Security-Policy",
    contentSecurityPolicy(nonce, url.origin, activity, musicKitSources(url.pathname, env)),
  );
  if (activity) h.delete("X-Frame-Options");
  else h.set("X-Frame-Options", "DENY");
  h.set("X-Content-Type-Options", "nosniff");
  h.set("Referrer-Policy", "strict-origin-when-cross-origin");
  if (url.protocol === "https:" && env.ENVIRONMENT !== "development")
    h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  return out;
}

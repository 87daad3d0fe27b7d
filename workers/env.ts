import type { Room } from "../durable/room";
import type { TokenAccount } from "../durable/token-account";
import type { Leaderboard } from "../durable/leaderboard";
import type { RateLimiter } from "../durable/rate-limiter";
import type { Relay } from "../durable/relay";
import type { NotificationMessage } from "./queues/notifications";
import type { AuditMessage } from "./queues/audit";
import type { PointsMessage } from "./queues/points";
import type { CrateImportMessage } from "./queues/crate-imports";
import type { TranscodeMessage } from "./queues/transcodes";
import type { SongAnalysisMessage } from "./queues/song-analysis";

/**
 * Every binding and variable the Worker sees. The names match wrangler.toml; the secrets
 * come from `.dev.vars` locally (made by scripts/setup.mjs) and `wrangler secret put` in
 * production (README.md lists them).
 */
export interface Env {
  DB: D1Database;
  UPLOADS: R2Bucket;
  NOTIFICATIONS: Queue<NotificationMessage>;
  AUDIT: Queue<AuditMessage>;
  /** Point events (room votes, service grants, admin adjustments) on their way to the Leaderboards. */
  POINTS: Queue<PointsMessage>;
  /** Background playlist imports (workers/queues/crate-imports.ts). */
  IMPORTS: Queue<CrateImportMessage>;
  /** Transcode jobs for uploads that need an MP3 rendition (workers/queues/transcodes.ts). */
  TRANSCODES: Queue<TranscodeMessage>;
  /** Music analysis jobs, one per song (workers/queues/song-analysis.ts). */
  ANALYSIS: Queue<SongAnalysisMessage>;
  Room: DurableObjectNamespace<Room>;
  TokenAccount: DurableObjectNamespace<TokenAccount>;
  Leaderboard: DurableObjectNamespace<Leaderboard>;
  /** Abuse limits: one object per rule and key (workers/lib/rate-limit.ts). */
  RateLimiter: DurableObjectNamespace<RateLimiter>;
  /** A stadium room's audience: one object per room and shard (durable/relay.ts). */
  Relay: DurableObjectNamespace<Relay>;
  /**
   * Sockets a room serves itself before new ones go through relays, and sockets per relay
   * (docs/ARCHITECTURE.md "Stadium rooms"); unset: 1000 and 500.
   */
  ROOM_RELAY_THRESHOLD?: string;
  ROOM_RELAY_SOCKETS?: string;
  /** "development" turns on the dev outbox and dev-only pages. */
  ENVIRONMENT: string;
  /** Where links in e-mails point (the web app's origin); unset: the request's origin. */
  PUBLIC_HOST?: string;
  /**
   * Demo DJs (issue 20): `room:djUuid` pairs, comma-separated (the room by slug or uuid). The
   * room keeps that account on stage playing public uploads (durable/room/demo-dj.ts). Unset:
   * none. `npm install` sets the seeded rooms' pairs in .dev.vars; production leaves it unset.
   */
  DEMO_DJS?: string;
  /** RS256 key pair for JWTs, PEM (PKCS#8 private, SPKI public); tokens name it by `kid` (lib/jwt.ts). */
  JWT_PRIVATE_KEY: string;
  JWT_PUBLIC_KEY: string;
  /** The public key before the last rotation (SPKI PEM): its tokens still verify while it is set. */
  JWT_PUBLIC_KEY_PREVIOUS?: string;
  /** Shared secret for service-to-service calls (`X-Service-Key`), and for nothing else. */
  SERVICE_KEY?: string;
  /**
   * Root of this Worker's own signing keys: room tickets, HLS URLs and song keys, the
   * room-password index each get an HKDF-derived key (lib/purpose-keys.ts). Unset: those
   * features answer 503.
   */
  ROOT_SECRET?: string;
  /**
   * The root before the last rotation: provider tokens sealed under it still open (their
   * key id names it) and are re-sealed under ROOT_SECRET when next written (lib/sealed.ts).
   */
  ROOT_SECRET_PREVIOUS?: string;
  /** "off" serves every HLS segment from D1 + R2 + AES, skipping the Cache API (upload-service/segment-cache.ts). */
  HLS_SEGMENT_CACHE?: string;
  /** E-mail provider (an HTTP API taking JSON); unset means the dev outbox. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /**
   * Text messages (workers/adapters/text-messages.ts): an HTTP API per channel taking JSON;
   * unset means the dev outbox in development, and the channel is off in production.
   */
  SMS_API_URL?: string;
  SMS_API_KEY?: string;
  WHATSAPP_API_URL?: string;
  WHATSAPP_API_KEY?: string;
  /**
   * The carrier lookup behind phone validation (workers/adapters/phone-lookup.ts): a
   * Twilio Lookup v2-style `GET <url>/<E.164>?Fields=line_type_intelligence`; unset means
   * libphonenumber's own line types.
   */
  PHONE_LOOKUP_URL?: string;
  PHONE_LOOKUP_KEY?: string;
  /**
   * Music providers (workers/adapters/music/): each is on only when its settings are all
   * present; unset, search answers from the local catalogue and says the provider is "off".
   */
  AUDIUS_API_URL?: string;
  SOUNDCLOUD_API_URL?: string;
  SOUNDCLOUD_CLIENT_ID?: string;
  SOUNDCLOUD_CLIENT_SECRET?: string;
  SPOTIFY_API_URL?: string;
  SPOTIFY_ACCOUNTS_URL?: string;
  SPOTIFY_CLIENT_ID?: string;
  SPOTIFY_CLIENT_SECRET?: string;
  YOUTUBE_API_URL?: string;
  YOUTUBE_API_KEY?: string;
  /**
   * Search's total time budget in ms (playlist-service/search-budget.ts): providers that
   * have not answered by then are left out and marked "late". Default 2500.
   */
  SEARCH_BUDGET_MS?: string;
  APPLE_MUSIC_API_URL?: string;
  /**
   * MusicKit JS for Apple Music linking on the Connected accounts page (issue 16); default
   * Apple's CDN (v3), and in development the local stand-in /musickit-stand-in.js.
   */
  MUSICKIT_JS_URL?: string;
  /** Apple Music developer token (a JWT made outside this service). */
  APPLE_MUSIC_TOKEN?: string;
  /**
   * Account linking (issue 16; adapters/oauth.ts). Each provider is on when its client id
   * and secret are set; unset, its link routes answer 503 and the Connected accounts page
   * shows it as unavailable. Redirect URIs are `${PUBLIC_HOST}/settings/connections/callback/<provider>`
   * (the request's origin only in development).
   */
  DISCORD_CLIENT_ID?: string;
  DISCORD_CLIENT_SECRET?: string;
  /** Discord's API base (token and users/@me); default https://discord.com/api. */
  DISCORD_API_URL?: string;
  /** Where the browser is sent to authorize; default https://discord.com/oauth2/authorize. */
  DISCORD_AUTHORIZE_URL?: string;
  /** Google OAuth client for YouTube linking; hosts default to Google's own. */
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  GOOGLE_AUTHORIZE_URL?: string;
  GOOGLE_TOKEN_URL?: string;
  /** SoundCloud's auth host (authorize, oauth/token): not its API host; default https://secure.soundcloud.com. */
  SOUNDCLOUD_AUTH_URL?: string;
  /** The mobile app's own SoundCloud client, and its redirect URI (an app scheme). */
  SOUNDCLOUD_MOBILE_CLIENT_ID?: string;
  SOUNDCLOUD_MOBILE_CLIENT_SECRET?: string;
  SOUNDCLOUD_MOBILE_REDIRECT_URI?: string;
  /** Apple Music developer token made here: the team's MusicKit key (PKCS#8 PEM, ES256), its key id and team id. */
  APPLE_MUSIC_KEY?: string;
  APPLE_MUSIC_KEY_ID?: string;
  APPLE_MUSIC_TEAM_ID?: string;
  SEVEN_DIGITAL_API_URL?: string;
  SEVEN_DIGITAL_KEY?: string;
  /** Signs 7digital stream and preview URLs (OAuth 1.0); without it they carry the key only. */
  SEVEN_DIGITAL_SECRET?: string;
  /** 7digital media hosts; defaults are 7digital's own. */
  SEVEN_DIGITAL_STREAM_URL?: string;
  SEVEN_DIGITAL_PREVIEW_URL?: string;
  /**
   * The music-analysis GraphQL API behind similar tracks (workers/adapters/analysis.ts): its
   * endpoint and bearer key. Unset: similar tracks come from our own data alone.
   */
  ANALYSIS_API_URL?: string;
  ANALYSIS_API_KEY?: string;
  /** "hangout" (default) or "turntable": the order search results and playback follow. */
  BRAND?: string;
  /**
   * The transcoder (workers/adapters/transcoder.ts): jobs go to `${TRANSCODER_URL}/jobs`, and
   * both jobs and its callbacks are signed with TRANSCODER_SECRET (`X-Transcoder-Signature`).
   * Locally `npm run dev` starts scripts/transcoder.mjs (ffmpeg) and sets both. Either unset:
   * WAV, FLAC, Ogg and M4A uploads are refused (415) and every callback is 401.
   */
  TRANSCODER_URL?: string;
  TRANSCODER_SECRET?: string;
  /**
   * Web Push (workers/adapters/push/web-push.ts): the VAPID key pair, base64url (public: the
   * 65-byte P-256 point pages pass as applicationServerKey; private: its 32-byte scalar),
   * made on first run by scripts/setup.mjs; the subject is a mailto: or https: contact.
   * Unset: web push is off (the in-app centre still gets every notification).
   */
  VAPID_PUBLIC_KEY?: string;
  VAPID_PRIVATE_KEY?: string;
  VAPID_SUBJECT?: string;
  /** FCM HTTP v1: the service account JSON; unset, FCM is off (adapters/push/fcm.ts). */
  FCM_SERVICE_ACCOUNT?: string;
  /** OAuth token URL (default the account's token_uri) and API base (default fcm.googleapis.com). */
  FCM_TOKEN_URL?: string;
  FCM_API_URL?: string;
  /** APNs token auth: the .p8 key (PKCS#8 PEM), its key id, the team id and the app's bundle id. */
  APNS_KEY?: string;
  APNS_KEY_ID?: string;
  APNS_TEAM_ID?: string;
  APNS_TOPIC?: string;
  /** api.push.apple.com (default) or api.sandbox.push.apple.com. */
  APNS_HOST?: string;
  /**
   * Agora live audio (POST /agora/token, workers/lib/agora-token.ts): the project's app id and
   * app certificate, 32 hex digits each. Unset: the call answers 503 and rooms have no live audio.
   */
  AGORA_APP_ID?: string;
  AGORA_APP_CERTIFICATE?: string;
  /** Stripe secret key; unset: checkout runs in local test mode (a local page completes it). */
  STRIPE_SECRET_KEY?: string;
  /** Verifies `POST /webhook/stripe`; in local test mode the dev key made by scripts/setup.mjs. */
  STRIPE_WEBHOOK_SECRET?: string;
  /** Stripe API base URL (tests point it at a stub); default Stripe's own. */
  STRIPE_API_URL?: string;
  /** PEM of the Apple root CA that signs App Store Server Notifications (tests use their own). */
  APPLE_ROOT_CA_PEM?: string;
  /** Our app's bundle id: App Store data for another app is refused (adapters/apple-config.ts). */
  APPLE_BUNDLE_ID?: string;
  /** Our app's numeric App Store id (appAppleId); required when APPLE_ENVIRONMENT is Production. */
  APPLE_APP_APPLE_ID?: string;
  /** "Production" (default) or "Sandbox": App Store data from the other environment is refused. */
  APPLE_ENVIRONMENT?: string;
}

/** The Hono environment every service app shares. */
export type AppEnv = {
  Bindings: Env;
  Variables: { caller?: import("./lib/auth").Caller };
};

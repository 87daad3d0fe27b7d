import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
import { routePartykitRequest } from "partyserver";
import { api } from "./api";
import type { Env } from "./env";
import { consumeAudit } from "./queues/audit";
import { consumeNotifications } from "./queues/notifications";
import { consumeCrateImports, failStuckImports } from "./queues/crate-imports";
import { consumePoints } from "./queues/points";
import { consumeTranscodes } from "./queues/transcodes";
import { sweepStaleUploads } from "./upload-service/stale-uploads";
import { consumeSongAnalysis } from "./queues/song-analysis";
import { consumePointsDeadLetters, POINTS_DLQ } from "./queues/points-dead-letters";
import { authorizeRoomConnection } from "./room-connect";
import { routeRoomSocket } from "./room-route";
import { primus } from "./primus";
import { announceStartingEvents } from "./room-service/event-starts";
import { purgeExpiredAuditEvents } from "./audit-service/retention";
import { purgePhoneData } from "./user-service/phone-validation";
import { makeNonce, withSecurityHeaders } from "./security-headers";
import { guardWebRequest } from "./web-guard";
import { mintWebToken } from "./lib/web-sessions";

export { Room } from "../durable/room";
export { TokenAccount } from "../durable/token-account";
export { Leaderboard } from "../durable/leaderboard";
export { RateLimiter } from "../durable/rate-limiter";
export { Relay } from "../durable/relay";

const isUpgrade = (r: Request) => r.headers.get("Upgrade")?.toLowerCase() === "websocket";

/**
 * The Remix handler, made on the first page request: the vite-built server bundle
 * (`npm run build` makes it; tests build first) is the React renderer and every route, most
 * of the Worker's start-up, and API, socket, queue and cron invocations never need it.
 */
let remixHandler: Promise<ReturnType<typeof createRequestHandler>> | undefined;
const remix = (...args: Parameters<ReturnType<typeof createRequestHandler>>) =>
  (remixHandler ??= import("../build/server/index.js").then((build) =>
    createRequestHandler(build as unknown as ServerBuild, "production"),
  )).then((handle) => handle(...args));

/**
 * The one Worker: `/api/*` to the Hono gateway, `/parties/*` to the room objects
 * (partyserver), `/primus` to the tt.live bots' bridge (primus.ts), everything else to Remix. Static files under build/client are served by
 * the assets binding before this code runs.
 */
export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/api" || pathname.startsWith("/api/")) return api.fetch(request, env, ctx);
    // tt.live bots (ttfm-socket) always connect here, whatever path their URL names.
    if (pathname === "/primus") return primus(request, env, ctx);
    // A room's socket: to the Room, or past its threshold to one of its relays (room-route.ts).
    if (pathname.startsWith("/parties/room/") && isUpgrade(request))
      return routeRoomSocket(request, env);
    if (pathname.startsWith("/parties/")) {
      // Only the Room is a party: a relay (or any other object) is never reached from outside.
      const res = pathname.startsWith("/parties/room/")
        ? await routePartykitRequest(request, env as never, {
            onBeforeConnect: (req) => authorizeRoomConnection(req, env),
          })
        : null;
      return (
        res ??
        Response.json(
          { statusCode: 404, message: `Cannot ${request.method} ${pathname}`, error: "Not Found" },
          { status: 404 },
        )
      );
    }
    // Web pages: a cross-site or oversized post never reaches an action (web-guard.ts), and
    // every answer carries the security headers with this response's CSP nonce.
    const nonce = makeNonce();
    const guarded = await guardWebRequest(request, env);
    if (guarded instanceof Response) return withSecurityHeaders(guarded, request, env, nonce);
    const res = await remix(guarded, {
      env,
      ctx,
      cspNonce: nonce,
      // The session cookie, as a minutes-long token for the loaders' API calls (never sent
      // to the browser: lib/web-sessions.ts).
      webToken: await mintWebToken(env, guarded),
      // The browser's `cf` goes along, so audit events from pages keep its geolocation.
      api: async (path: string, init?: RequestInit) =>
        api.fetch(new Request(new URL(path, request.url), { ...init, cf: request.cf }), env, ctx),
    });
    return withSecurityHeaders(res, request, env, nonce);
  },

  /**
   * The cron (wrangler.toml `[triggers]`, every minute): events starting now are announced,
   * and audit events past their retention, phone validations past theirs and dead sign-in
   * codes are purged, a bounded batch a run.
   */
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(announceStartingEvents(env));
    ctx.waitUntil(
      purgeExpiredAuditEvents(env).catch((err) => console.error("audit purge failed", err)),
    );
    ctx.waitUntil(purgePhoneData(env).catch((err) => console.error("phone purge failed", err)));
    // Playlist imports whose consumer died end FAILED, so no crate stays "in progress".
    ctx.waitUntil(
      failStuckImports(env).catch((err) => console.error("stuck import sweep failed", err)),
    );
    // Uploads that never finished (or never heard from the transcoder) end failed, and their
    // open R2 multipart uploads are aborted.
    ctx.waitUntil(
      sweepStaleUploads(env).catch((err) => console.error("stale upload sweep failed", err)),
    );
  },

  async queue(batch, env) {
    if (batch.queue.startsWith("hangout-notifications")) return consumeNotifications(batch, env);
    if (batch.queue.startsWith("hangout-audit")) return consumeAudit(batch, env);
    if (batch.queue.startsWith("hangout-imports")) return consumeCrateImports(batch, env);
    if (batch.queue.startsWith("hangout-transcodes")) return consumeTranscodes(batch, env);
    if (batch.queue.startsWith("hangout-analysis")) return consumeSongAnalysis(batch, env);
    // The dead-letter queue first: its name starts with the points queue's.
    if (batch.queue.startsWith(POINTS_DLQ)) return consumePointsDeadLetters(batch, env);
    if (batch.queue.startsWith("hangout-points")) return consumePoints(batch, env);
    console.error(`no consumer for queue ${batch.queue}`);
    batch.retryAll();
  },
} satisfies ExportedHandler<Env>;

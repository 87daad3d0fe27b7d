import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";

/**
 * A stand-in for Discord's OAuth endpoints in the browser tests (issue 16). The harness
 * (global-setup.ts) starts it on a free port and points the dev server's DISCORD_* settings
 * at it with `wrangler dev --var`, so the real link flow runs end to end: the page sends the
 * browser to /oauth2/authorize here, the "Authorize" button comes back to our callback with
 * a code, and the Worker trades the code at /api/oauth2/token and asks /api/users/@me, as
 * it would at discord.com. Codes are single-use; each authorization is a new Discord person.
 *
 * The Discord Activity (e2e/discord-activity.e2e.ts) gets its code the way the Embedded App
 * SDK does, from the Discord client, with no page and no redirect: the test's stand-in client
 * asks `POST /test/activity-authorize` `{ client_id, scope }` for one.
 */
export const STUB_CLIENT_ID = "1300000000000000001";
export const STUB_CLIENT_SECRET = "e2e-discord-secret";
export const STUB_APPLE_DEVELOPER_TOKEN = "e2e-apple-developer-token";

export function startOAuthStub(port: number): Promise<Server> {
  const codes = new Map<string, { used: boolean; id: string; name: string }>();
  const tokens = new Map<string, { id: string; name: string }>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
    const send = (status: number, body: unknown, type = "application/json") => {
      res.writeHead(status, { "Content-Type": type });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/oauth2/authorize") {
      const redirect = url.searchParams.get("redirect_uri") ?? "";
      const state = url.searchParams.get("state") ?? "";
      const code = randomUUID();
      const id = String(1e17 + Math.floor(Math.random() * 1e16));
      codes.set(code, { used: false, id, name: `Discord Tester ${id.slice(-4)}` });
      const back = (q: string) => `${redirect}?${q}&state=${encodeURIComponent(state)}`;
      return send(
        200,
        `<!doctype html><title>Discord (test stand-in)</title><h1>Authorize Hangout?</h1>
<p>client ${url.searchParams.get("client_id")}, scope ${url.searchParams.get("scope")}</p>
<a id="authorize" href="${back(`code=${code}`)}">Authorize</a>
<a id="cancel" href="${back("error=access_denied")}">Cancel</a>`,
        "text/html",
      );
    }
    // Apple Music's API, as far as linking needs it: a Music User Token is accepted when it is
    // one the MusicKit stand-in (public/musickit-stand-in.js) made, with our developer token.
    if (req.method === "GET" && url.pathname === "/apple/v1/me/storefront") {
      const dev = req.headers.authorization === `Bearer ${STUB_APPLE_DEVELOPER_TOKEN}`;
      const mut = String(req.headers["music-user-token"] ?? "");
      if (!dev || !/^stand-in-mut-[0-9a-f]{48}$/.test(mut))
        return send(403, { errors: [{ status: "403", title: "Forbidden" }] });
      return send(200, { data: [{ id: "us", type: "storefronts" }] });
    }
    if (req.method === "GET" && url.pathname.startsWith("/apple/v1/catalog/"))
      return send(200, { results: {} });
    if (req.method === "POST" && url.pathname === "/test/activity-authorize") {
      let raw = "";
      req.on("data", (d) => (raw += d));
      req.on("end", () => {
        const body = JSON.parse(raw || "{}") as { client_id?: string };
        if (body.client_id !== STUB_CLIENT_ID) return send(400, { error: "invalid_client" });
        const code = randomUUID();
        const id = String(1e17 + Math.floor(Math.random() * 1e16));
        codes.set(code, { used: false, id, name: `Discord Tester ${id.slice(-4)}` });
        send(200, { code });
      });
      return;
    }
    if (req.method === "POST" && url.pathname === "/api/oauth2/token") {
      let raw = "";
      req.on("data", (d) => (raw += d));
      req.on("end", () => {
        const form = new URLSearchParams(raw);
        const basic = Buffer.from(`${STUB_CLIENT_ID}:${STUB_CLIENT_SECRET}`).toString("base64");
        if (req.headers.authorization !== `Basic ${basic}`)
          return send(401, { error: "invalid_client" });
        const c = codes.get(form.get("code") ?? "");
        if (!c || c.used) return send(400, { error: "invalid_grant" });
        c.used = true;
        const access = randomUUID();
        tokens.set(access, c);
        send(200, {
          access_token: access,
          refresh_token: randomUUID(),
          expires_in: 604800,
          scope: "identify email",
        });
      });
      return;
    }
    if (req.method === "GET" && url.pathname === "/api/users/@me") {
      const who = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
      if (!who) return send(401, { message: "401: Unauthorized" });
      return send(200, {
        id: who.id,
        username: who.name,
        global_name: who.name,
        email: null,
        verified: false,
      });
    }
    send(404, { message: "not here" });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

/** The dev server's settings that point Discord and Apple Music's API at the stub. */
export const stubVars = (port: number) => [
  `DISCORD_CLIENT_ID:${STUB_CLIENT_ID}`,
  `DISCORD_CLIENT_SECRET:${STUB_CLIENT_SECRET}`,
  `DISCORD_API_URL:http://127.0.0.1:${port}/api`,
  `DISCORD_AUTHORIZE_URL:http://127.0.0.1:${port}/oauth2/authorize`,
  `APPLE_MUSIC_API_URL:http://127.0.0.1:${port}/apple`,
  `APPLE_MUSIC_TOKEN:${STUB_APPLE_DEVELOPER_TOKEN}`,
];

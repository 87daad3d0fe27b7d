import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { WebSocket as ServerSocket } from "undici";
import { CHROMIUM_ARGS, shot, watchCsp } from "./browser";
import { STUB_CLIENT_ID } from "./oauth-stub";

/**
 * A stand-in for the Discord client and its Activity proxy (issue 16), for the browser tests.
 *
 * Discord shows an Activity in an iframe at `https://<client id>.discordsays.com`, its proxy,
 * which forwards every request (pages, data, API calls, websockets, with the browser's
 * cookies) to the app's URL mapping; the client page at https://discord.com speaks to the
 * frame by postMessage (the Embedded App SDK's RPC). Here both are the browser's own request
 * routing, so nothing leaves the machine: https://discord.com serves `clientPage` (a page that
 * answers the handshake with READY, AUTHORIZE with a code, AUTHENTICATE with the user), and
 * the discordsays.com host is forwarded to the dev server, websockets included. The app sees
 * what it sees in production: a cross-site frame, an Origin of discordsays.com.
 *
 * The browser is a profile that allows third-party cookies and storage, as Discord's desktop
 * and mobile apps do (an incognito browser blocks the frame's storage; Remix needs
 * sessionStorage).
 */
export const PROXY_ORIGIN = `https://${STUB_CLIENT_ID}.discordsays.com`;

/** The client page: frames `src` and answers the SDK; `window.rpc` logs what the frame asked. */
export const clientPage = (src: string) => `<!doctype html>
<html><head><title>Discord (test stand-in)</title>
<style>html,body{margin:0;height:100%;background:#313338}iframe{border:0;width:100%;height:100%}</style>
</head><body><iframe id="activity" src="${src}" allow="autoplay"></iframe>
<script>
const frame = document.getElementById("activity");
window.rpc = [];
const reply = (msg) => frame.contentWindow.postMessage(msg, "*");
window.addEventListener("message", async (e) => {
  if (e.source !== frame.contentWindow || !Array.isArray(e.data)) return;
  const [op, p] = e.data;
  window.rpc.push(op === 0 ? "HANDSHAKE:" + p.client_id : p && p.cmd);
  if (op === 0)
    return reply([1, { cmd: "DISPATCH", evt: "READY", nonce: null,
      data: { v: 1, config: { api_endpoint: "//discord.com/api", environment: "production" } } }]);
  if (op !== 1) return;
  if (p.cmd === "AUTHORIZE") {
    const answer = await window.discordAuthorize(p.args);
    if (!answer.code)
      return reply([1, { cmd: p.cmd, evt: "ERROR", nonce: p.nonce, data: { code: 5000, message: "denied" } }]);
    return reply([1, { cmd: p.cmd, evt: null, nonce: p.nonce, data: { code: answer.code } }]);
  }
  if (p.cmd === "AUTHENTICATE") {
    window.authenticatedWith = p.args.access_token;
    return reply([1, { cmd: p.cmd, evt: null, nonce: p.nonce, data: {
      access_token: p.args.access_token,
      user: { username: "tester", discriminator: "0", id: "1", public_flags: 0 },
      scopes: ["identify", "guilds"],
      expires: new Date(Date.now() + 6e5).toISOString(),
      application: { description: "", id: "${STUB_CLIENT_ID}", name: "Hangout" } } }]);
  }
  reply([1, { cmd: p.cmd, evt: "ERROR", nonce: p.nonce, data: { code: 4002, message: "not in this stand-in" } }]);
});
</script></body></html>`;

/** A Chromium profile like Discord's apps (third-party cookies on), with the proxy routed to `base`. */
export async function discordBrowser(
  base: string,
  viewport: { width: number; height: number },
  locale = "en-US",
): Promise<BrowserContext> {
  const dir = mkdtempSync(join(tmpdir(), "discord-client-"));
  mkdirSync(join(dir, "Default"));
  writeFileSync(
    join(dir, "Default", "Preferences"),
    JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
  );
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
    viewport,
    locale,
  });
  context.on("close", () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      /* Chromium still finishing a write: the OS temp dir takes it */
    }
  });
  watchCsp(context);
  // Discord's proxy: every request of the frame goes on to the app as it came (headers,
  // cookies, body), from outside the browser, so the browser's own cookie jar sees only what
  // the frame itself was sent.
  await context.route(`${PROXY_ORIGIN}/**`, async (route) => {
    const req = route.request();
    const u = new URL(req.url());
    const headers = await req.allHeaders();
    delete headers.host;
    const body = req.postDataBuffer();
    // Chromium adds Sec-Fetch-Site after the point where requests are intercepted: set what it
    // sends, same-origin from the frame's own pages, cross-site for the frame's first load.
    headers["sec-fetch-site"] = req.frame().url().startsWith(PROXY_ORIGIN)
      ? "same-origin"
      : "cross-site";
    const res = await fetch(`${base}${u.pathname}${u.search}`, {
      method: req.method(),
      headers,
      body: body ? new Uint8Array(body) : null,
      redirect: "manual",
    });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (k !== "set-cookie" && k !== "content-encoding" && k !== "content-length") out[k] = v;
    });
    const cookies = res.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies.join("\n");
    await route.fulfill({
      status: res.status,
      headers: out,
      body: Buffer.from(await res.arrayBuffer()),
    });
  });
  // ...and its sockets, with the frame's cookies and Origin (the room's live state).
  await context.routeWebSocket(
    new RegExp(`^wss://${STUB_CLIENT_ID}\\.discordsays\\.com/`),
    async (ws) => {
      const u = new URL(ws.url());
      const jar = await context.cookies(PROXY_ORIGIN);
      const upstream = new ServerSocket(`${base.replace(/^http/, "ws")}${u.pathname}${u.search}`, {
        headers: {
          Cookie: jar.map((c) => `${c.name}=${c.value}`).join("; "),
          Origin: PROXY_ORIGIN,
        },
      });
      upstream.binaryType = "arraybuffer";
      const early: (string | Buffer)[] = [];
      upstream.onopen = () => early.splice(0).forEach((m) => upstream.send(m));
      upstream.onmessage = (e) =>
        ws.send(typeof e.data === "string" ? e.data : Buffer.from(e.data as ArrayBuffer));
      upstream.onclose = (e) =>
        ws.close({ code: e.code === 1005 ? 1000 : e.code, reason: e.reason });
      ws.onMessage((m) => (upstream.readyState === 1 ? upstream.send(m) : early.push(m)));
      ws.onClose(() => upstream.close());
    },
  );
  return context;
}

/** What Discord adds to an Activity's URL when it opens it. */
export function activityUrl(guildId: string | null, path = "/activity"): string {
  const q = new URLSearchParams({
    frame_id: crypto.randomUUID(),
    instance_id: `i-${crypto.randomUUID()}`,
    platform: "desktop",
    channel_id: String(1e17 + Math.floor(Math.random() * 1e16)),
  });
  if (guildId) q.set("guild_id", guildId);
  return `${PROXY_ORIGIN}${path}?${q}`;
}

/**
 * Opens the client page framing `src`. `authorize` answers the SDK's AUTHORIZE; by default a
 * fresh code from the OAuth stand-in at `stub`, as Discord's client gets one.
 */
export async function openInDiscord(
  context: BrowserContext,
  src: string,
  stub: string,
  authorize?: () => Promise<{ code: string | null }>,
): Promise<{ page: Page; scopes: string[][] }> {
  const scopes: string[][] = [];
  await context.route("https://discord.com/**", (route) =>
    route.fulfill({ contentType: "text/html", body: clientPage(src) }),
  );
  const page = await context.newPage();
  await page.exposeFunction(
    "discordAuthorize",
    async (args: { client_id: string; scope: string[] }) => {
      scopes.push(args.scope);
      if (authorize) return authorize();
      const res = await fetch(`${stub}/test/activity-authorize`, {
        method: "POST",
        body: JSON.stringify({ client_id: args.client_id, scope: args.scope }),
      });
      return (await res.json()) as { code: string };
    },
  );
  // Not "load": that waits for the Activity's whole frame, which a loaded machine may take
  // past goto's 30 s; every caller polls the frame for what it expects instead.
  await page.goto(`https://discord.com/activities/${crypto.randomUUID()}`, {
    waitUntil: "domcontentloaded",
  });
  return { page, scopes };
}

/**
 * Screenshots the Activity's frame as Discord shows it (`name`), after `shot` has taken the
 * whole client page and checked it for CSP violations (`name`-client).
 */
export async function frameShot(page: Page, name: string) {
  await shot(page, `${name}-client`);
  await page.locator("#activity").screenshot({ path: `.e2e/shots/${name}.png` });
}

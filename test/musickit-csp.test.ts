import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../workers/app";
import type { Env } from "../workers/env";
import { musicKitScriptUrl } from "../workers/security-headers";

/**
 * Apple Music linking loads MusicKit JS (issue 16): from configuration, Apple's CDN by default,
 * the local stand-in in development. Only the Connected accounts page admits its origin (and
 * Apple Music's API) in its CSP; every other page's script-src stays ours.
 */
async function cspOf(over: Partial<Env>, path: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`https://hangout.test${path}`, { redirect: "manual" }) as never,
    { ...env, ...over } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await res.body?.cancel();
  return res.headers.get("Content-Security-Policy") ?? "";
}
const directive = (csp: string, name: string) =>
  csp.split("; ").find((d) => d.startsWith(`${name} `)) ?? "";

describe("MusicKit JS", () => {
  it("comes from configuration, else Apple's CDN, else (in development) the local stand-in", () => {
    expect(musicKitScriptUrl({ ENVIRONMENT: "production" })).toBe(
      "https://js-cdn.music.apple.com/musickit/v3/musickit.js",
    );
    expect(musicKitScriptUrl({ ENVIRONMENT: "development" })).toBe("/musickit-stand-in.js");
    expect(
      musicKitScriptUrl({ ENVIRONMENT: "development", MUSICKIT_JS_URL: "https://cdn.test/mk.js" }),
    ).toBe("https://cdn.test/mk.js");
  });

  it("only the Connected accounts page admits its script and Apple Music's API", async () => {
    const prod = { ENVIRONMENT: "production" };
    // Signed out, the page redirects to log in; the headers are the page's all the same.
    const page = await cspOf(prod, "/settings/connections");
    expect(directive(page, "script-src")).toContain("https://js-cdn.music.apple.com");
    expect(directive(page, "connect-src")).toContain("https://api.music.apple.com");
    for (const path of ["/", "/settings/notifications", "/settings/connections/callback/discord"]) {
      const other = await cspOf(prod, path);
      expect(directive(other, "script-src"), path).not.toContain("music.apple.com");
      expect(directive(other, "connect-src"), path).not.toContain("music.apple.com");
    }
    // In development the stand-in is ours ('self'): nothing is added.
    const dev = await cspOf({ ENVIRONMENT: "development" }, "/settings/connections");
    expect(dev).not.toContain("music.apple.com");
  }, 90_000);
});

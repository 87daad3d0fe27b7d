import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

// DESIGN.md: the deploy bundle builds offline and stays well under the Workers script
// size limit (10 MB compressed). This builds exactly what `wrangler deploy` would upload.
describe("deploy bundle", () => {
  it("builds offline with wrangler deploy --dry-run and is under 10 MB gzipped", () => {
    const out = ".cache/deploy-dry-run";
    rmSync(out, { recursive: true, force: true });
    execFileSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", out], {
      stdio: "pipe",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    const files = readdirSync(out).filter(
      (f) => statSync(`${out}/${f}`).isFile() && !f.endsWith(".map"),
    );
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    const gzipped = files.reduce((n, f) => n + gzipSync(readFileSync(`${out}/${f}`)).length, 0);
    expect(gzipped).toBeGreaterThan(10_000);
    expect(gzipped).toBeLessThan(10 * 1024 * 1024);
  }, 120_000);
});

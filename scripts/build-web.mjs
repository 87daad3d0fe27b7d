// The web app's build (`remix vite:build` into build/): the Worker imports it and
// wrangler.toml serves build/client as assets, so `npm run dev`, `npm test` and every bench
// that starts the real Worker build it first, from the code as it is now (a fresh clone has
// no build/, and an old one would measure or test stale pages).
import { execFileSync } from "node:child_process";

export function buildWebApp(env = process.env) {
  execFileSync("npx", ["remix", "vite:build"], { stdio: ["ignore", "ignore", "inherit"], env });
}

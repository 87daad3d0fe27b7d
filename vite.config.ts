import { cloudflareDevProxyVitePlugin, vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

// `remix vite:build` makes build/client (static, served by the assets binding) and
// build/server (imported by workers/app.ts). The dev proxy plugin is for `serve` only.
export default defineConfig(({ command }) => ({
  plugins: [
    ...(command === "serve" ? [cloudflareDevProxyVitePlugin()] : []),
    remix({
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
    tailwindcss(),
  ],
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  ssr: {
    resolve: {
      conditions: ["workerd", "worker", "browser"],
      externalConditions: ["workerd", "worker"],
    },
  },
  build: { emptyOutDir: false },
}));

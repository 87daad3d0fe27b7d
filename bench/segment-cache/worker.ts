import { Hono } from "hono";
import type { AppEnv, Env } from "../../workers/env";
import { ApiError } from "../../workers/lib/errors";
import { purposeKey } from "../../workers/lib/purpose-keys";
import { buildPlaylist } from "../../workers/songs/hls";
import { hlsRoutes } from "../../workers/upload-service/hls";

/**
 * The segment-cache bench's Worker (bench/segment-cache.bench.mjs): the app's own HLS routes
 * (workers/upload-service/hls.ts) over a real D1, R2 and Cache API in Miniflare, with the R2
 * binding wrapped to count reads. `/__bench/*` sets up the song and reads the counters; a
 * playlist is built here directly (the bench is about segments, not sign-in).
 */
let r2Reads = 0;

function counted(bucket: R2Bucket): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      if (prop === "get")
        return (...args: Parameters<R2Bucket["get"]>) => {
          r2Reads++;
          return target.get(...args);
        };
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const app = new Hono<AppEnv>();
app.route("/api/upload-service", hlsRoutes);
app.onError((err, c) =>
  err instanceof ApiError
    ? c.json({ message: err.message }, err.status as 400)
    : c.json({ message: String(err) }, 500),
);

async function bench(req: Request, env: Env): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/__bench/sql") {
    const { queries } = (await req.json()) as { queries: string[] };
    await env.DB.batch(queries.map((q) => env.DB.prepare(q)));
    return Response.json({ ok: true });
  }
  if (url.pathname === "/__bench/put") {
    await env.UPLOADS.put(url.searchParams.get("key")!, await req.arrayBuffer());
    return Response.json({ ok: true });
  }
  if (url.pathname === "/__bench/playlist") {
    const { songId, segments, epoch } = (await req.json()) as {
      songId: string;
      segments: { offset: number; length: number; duration: number }[];
      epoch: number;
    };
    return new Response(await buildPlaylist(await purposeKey(env, "hls"), songId, segments, epoch));
  }
  if (url.pathname === "/__bench/stats") return Response.json({ r2Reads });
  return new Response("not found", { status: 404 });
}

export default {
  fetch(req: Request, env: Env, ctx: ExecutionContext) {
    if (new URL(req.url).pathname.startsWith("/__bench/")) return bench(req, env);
    return app.fetch(req, { ...env, UPLOADS: counted(env.UPLOADS) }, ctx);
  },
};

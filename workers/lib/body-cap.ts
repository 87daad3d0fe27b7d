import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";

/**
 * The gateway's cap on every request body that is not a file upload (issue 13: "bodies are
 * capped before they are read, on every API route"). JSON, form and text bodies are a few KiB
 * (the largest: a user's userData, 16 KiB; a crate import's song list; an App Store payload,
 * 64 KB); 1 MiB refuses a flood without touching any of them. Multipart bodies are files:
 * each upload route caps its own (`uploadBodyLimit`, the song stream's own count), and a
 * route that takes no file never reads one (its JSON validator refuses the content type).
 */
export const API_BODY_MAX_BYTES = 1024 * 1024;

const capped = bodyLimit({
  maxSize: API_BODY_MAX_BYTES,
  onError: () => {
    throw new ApiError(413, `Request body too large: at most ${API_BODY_MAX_BYTES} bytes.`);
  },
});

export const bodyCap = createMiddleware<AppEnv>(async (c, next) => {
  const type = (c.req.header("Content-Type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) return next();
  // The transcoder's MP3 rendition: a signed URL, and the route counts its own bytes
  // (upload-service/transcoder-files.ts, MAX_RENDITION_BYTES).
  if (c.req.method === "PUT" && c.req.path.endsWith("/upload/transcoder/rendition")) return next();
  return capped(c, next);
});

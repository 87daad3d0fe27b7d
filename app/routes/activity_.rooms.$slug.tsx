/**
 * The room inside the Discord Activity frame (issue 16): the room page itself, at a path
 * Discord may frame (workers/security-headers.ts lets only /activity and below be framed,
 * and only by Discord). The session is the frame's own (activity.tsx signs it in).
 */
export { loader, meta, default } from "./rooms.$slug";

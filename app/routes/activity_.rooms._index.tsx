/**
 * The room list inside the Discord Activity frame (issue 16), for a server with no room of its
 * own: the rooms page itself, at a path Discord may frame (workers/security-headers.ts).
 */
export { loader, meta, default, ErrorBoundary } from "./rooms._index";

// The shapes the merch-service answers for avatars come from its own builders
// (workers/merch-service/avatars.ts, avatar-rules.ts), so pages and API cannot drift.
// Type-only imports: no server code reaches the browser bundle.
export type { AvatarDto, AvatarWithAccess } from "../../workers/merch-service/avatars/avatars";
export type { Unlock } from "../../workers/merch-service/avatars/avatar-rules";

/** Where the merch-service answers (DESIGN.md, "Gateway paths"). */
export const MERCH_SERVICE = "/api/merch-service";

/**
 * Token-shop enumerations the Worker, the Room object and the browser all need. The D1
 * schema (workers/db/shop-schema.ts) and the zod checks derive from these; nothing restates them.
 */

/** How a consumable shows in the room: over the cover art, or small beside the chat line. */
export const CONSUMABLE_DISPLAY_TYPES = ["cover", "small"] as const;
export type ConsumableDisplayType = (typeof CONSUMABLE_DISPLAY_TYPES)[number];

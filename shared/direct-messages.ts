/**
 * Direct messages as both sides of the wire see them (workers/social-service/dm-store.ts
 * writes them, app/lib/messages.ts reads them): one definition of the tabs, the length limit
 * and a message's shape.
 */

/**
 * Seed 001's conversation tabs. FRIENDS: the other side is my friend now; OTHERS: they are
 * not (message requests and strangers); UNSET: no tab chosen, every conversation.
 */
export const DM_TABS = ["FRIENDS", "OTHERS", "UNSET"] as const;
export type DmTab = (typeof DM_TABS)[number];

/** The longest message, in characters. */
export const DM_TEXT_MAX = 2000;

export interface DmMessage {
  id: number;
  conversationUuid: string;
  senderUuid: string;
  text: string;
  createdAt: string;
}

import { DM_TABS, DM_TEXT_MAX, type DmMessage, type DmTab } from "../../shared/direct-messages";
import type { PublicProfile } from "./types";

/**
 * Direct messages as the pages see them (workers/social-service/direct-messages.ts). The
 * conversation page polls for new messages (POLL_MS) rather than holding a socket: one
 * small indexed read every few seconds while the tab is visible, no new object per
 * conversation (docs/DECISIONS.md, "Chat: our own direct messages").
 */
export const DM = "/api/social-service/direct-messages";
/** The tabs in the order the page shows them: everything first. */
export const TAB_ORDER: readonly DmTab[] = ["UNSET", "FRIENDS", "OTHERS"];
export { DM_TABS, DM_TEXT_MAX, type DmMessage, type DmTab };
export const DM_PAGE = 30;
/** How often an open conversation asks for new messages while visible. */
export const POLL_MS = 2500;
/** How often the header's unread count refreshes while the tab is visible. */
export const UNREAD_POLL_MS = 15_000;

export interface ConversationDto {
  conversationUuid: string;
  peerUuid: string;
  peer: PublicProfile | null;
  unread: number;
  isFriend: boolean;
  lastMessageAt: string;
  lastMessage: DmMessage | null;
}

export interface ConversationPage {
  data: ConversationDto[];
  total: number;
  limit: number;
  offset: number;
  tab: DmTab;
}

export interface UnreadCounts {
  unread: number;
  conversations: number;
  tabs: Record<DmTab, number>;
}

export interface ConversationWith {
  conversationUuid: string | null;
  peer: PublicProfile | null;
  unread: number;
  isFriend: boolean;
  canMessage: boolean;
  reason: string | null;
}

export interface MessagePage {
  data: DmMessage[];
  hasMore: boolean;
}

export const isTab = (v: unknown): v is DmTab =>
  typeof v === "string" && (DM_TABS as readonly string[]).includes(v);

/** Merges `more` into `list` by id (a poll and a send may both bring the same message). */
export function mergeMessages(list: DmMessage[], more: DmMessage[]): DmMessage[] {
  const byId = new Map(list.map((m) => [m.id, m]));
  for (const m of more) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

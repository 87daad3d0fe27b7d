import type { Env } from "../env";
import type { DmMessage, DmTab } from "../../shared/direct-messages";
import { sortedPair } from "./friendship";

/**
 * The direct-message store (D1 tables in workers/db/chat-schema.ts). Every write is one D1
 * batch, which D1 runs as one transaction, so a message, its conversation and both sides'
 * counters appear together or not at all, and two first messages racing make one
 * conversation (its pair is unique; both inserts are "or ignore" and the rest reads it back).
 */

/** The largest page of messages or conversations. */
export const DM_PAGE_MAX = 100;

export { DM_TABS, DM_TEXT_MAX, type DmMessage, type DmTab } from "../../shared/direct-messages";

interface MessageRow {
  id: number;
  conversation_uuid: string;
  sender_uuid: string;
  text: string;
  created_at: number;
}

export const toDmMessage = (r: MessageRow): DmMessage => ({
  id: r.id,
  conversationUuid: r.conversation_uuid,
  senderUuid: r.sender_uuid,
  text: r.text,
  createdAt: new Date(r.created_at).toISOString(),
});

/** The conversation uuid between `a` and `b`, or null when they never wrote. */
export async function conversationBetween(env: Env, a: string, b: string): Promise<string | null> {
  const [x, y] = sortedPair(a, b);
  const row = await env.DB.prepare(
    `select uuid from dm_conversations where user_a = ?1 and user_b = ?2`,
  )
    .bind(x, y)
    .first<{ uuid: string }>();
  return row?.uuid ?? null;
}

/**
 * Stores `text` from `from` to `to` and counts it unread for `to`, making the conversation
 * if this is the first message. Checks (blocks, friends-only, limits) are the caller's.
 */
export async function storeMessage(
  env: Env,
  from: string,
  to: string,
  text: string,
): Promise<DmMessage> {
  const [x, y] = sortedPair(from, to);
  const now = Date.now();
  const conv = `(select uuid from dm_conversations where user_a = ?1 and user_b = ?2)`;
  const member = (who: string, peer: string) =>
    env.DB.prepare(
      `insert or ignore into dm_conversation_members (user_uuid, conversation_uuid, peer_uuid, last_message_at)
       values (?3, ${conv}, ?4, ?5)`,
    ).bind(x, y, who, peer, now);
  const results = await env.DB.batch([
    env.DB.prepare(
      `insert or ignore into dm_conversations (uuid, user_a, user_b, created_at) values (?3, ?1, ?2, ?4)`,
    ).bind(x, y, crypto.randomUUID(), now),
    member(from, to),
    member(to, from),
    env.DB.prepare(
      `insert into dm_messages (conversation_uuid, sender_uuid, text, created_at)
       values (${conv}, ?3, ?4, ?5) returning id, conversation_uuid, sender_uuid, text, created_at`,
    ).bind(x, y, from, text, now),
    env.DB.prepare(
      `update dm_conversation_members set last_message_at = ?4,
         unread = unread + (case when user_uuid = ?3 then 0 else 1 end)
       where conversation_uuid = ${conv}`,
    ).bind(x, y, from, now),
  ]);
  return toDmMessage((results[3].results as MessageRow[])[0]);
}

/** Whether `me` is a side of `conversationUuid`, and who the other side is. */
export async function membership(env: Env, me: string, conversationUuid: string) {
  return env.DB.prepare(
    `select peer_uuid as peerUuid, unread, read_up_to as readUpTo
     from dm_conversation_members where user_uuid = ?1 and conversation_uuid = ?2`,
  )
    .bind(me, conversationUuid)
    .first<{ peerUuid: string; unread: number; readUpTo: number }>();
}

/**
 * One page of a conversation's messages, oldest first: the newest `limit` before `before`
 * (or the newest of all), or, with `after`, the oldest `limit` after it (how a client polls
 * for what is new). `hasMore` says whether a further page exists in that direction.
 */
export async function messagePage(
  env: Env,
  conversationUuid: string,
  q: { before?: number; after?: number; limit: number },
) {
  const forward = q.after !== undefined;
  const rows = await env.DB.prepare(
    forward
      ? `select * from dm_messages where conversation_uuid = ?1 and id > ?2 order by id asc limit ?3`
      : `select * from dm_messages where conversation_uuid = ?1 and id < ?2 order by id desc limit ?3`,
  )
    .bind(conversationUuid, forward ? q.after : (q.before ?? Number.MAX_SAFE_INTEGER), q.limit + 1)
    .all<MessageRow>();
  const list = rows.results.slice(0, q.limit);
  if (!forward) list.reverse();
  return { data: list.map(toDmMessage), hasMore: rows.results.length > q.limit };
}

/**
 * Marks `me`'s side read up to message `upTo` (default: the newest). One UPDATE that also
 * recounts what is still unread after that point, so a message landing meanwhile stays
 * counted, and a stale `upTo` never moves the read position back. Answers the unread left.
 */
export async function markRead(env: Env, me: string, conversationUuid: string, upTo?: number) {
  const mark = upTo ?? Number.MAX_SAFE_INTEGER;
  const row = await env.DB.prepare(
    `update dm_conversation_members
       set read_up_to = max(read_up_to, min(?3, coalesce((select max(id) from dm_messages where conversation_uuid = ?2), 0))),
           unread = (select count(*) from dm_messages m where m.conversation_uuid = ?2
                       and m.sender_uuid != ?1 and m.id > max(read_up_to, min(?3,
                         coalesce((select max(id) from dm_messages where conversation_uuid = ?2), 0))))
     where user_uuid = ?1 and conversation_uuid = ?2
     returning unread, read_up_to as readUpTo`,
  )
    .bind(me, conversationUuid, mark)
    .first<{ unread: number; readUpTo: number }>();
  return row;
}

const friendExists = `exists (select 1 from friends f where f.user_a = min(m.user_uuid, m.peer_uuid) and f.user_b = max(m.user_uuid, m.peer_uuid))`;
const notBlocked = `not exists (select 1 from blocked_users b where (b.blocker_uuid = m.user_uuid and b.blocked_uuid = m.peer_uuid) or (b.blocker_uuid = m.peer_uuid and b.blocked_uuid = m.user_uuid))`;
const peerActive = `exists (select 1 from users u where u.uuid = m.peer_uuid and u.deactivated = 0)`;

const tabFilter = (tab: DmTab) =>
  tab === "FRIENDS" ? `and ${friendExists}` : tab === "OTHERS" ? `and not ${friendExists}` : "";

export interface ConversationSummary {
  conversationUuid: string;
  peerUuid: string;
  unread: number;
  isFriend: boolean;
  lastMessageAt: string;
  lastMessage: DmMessage | null;
}

/**
 * `me`'s conversations in `tab`, the most recent first, with each one's unread count and
 * last message. A conversation with someone blocked either way, or whose account is gone,
 * is not listed (blocks are enforced where content is shown).
 */
export async function conversationPage(
  env: Env,
  me: string,
  tab: DmTab,
  page: { limit: number; offset: number },
) {
  const where = `m.user_uuid = ?1 and ${notBlocked} and ${peerActive} ${tabFilter(tab)}`;
  const [rows, total] = await env.DB.batch<Record<string, unknown>>([
    env.DB.prepare(
      `select m.conversation_uuid, m.peer_uuid, m.unread, m.last_message_at, ${friendExists} as is_friend,
         (select json_object('id', d.id, 'conversation_uuid', d.conversation_uuid, 'sender_uuid', d.sender_uuid,
                             'text', d.text, 'created_at', d.created_at)
            from dm_messages d where d.conversation_uuid = m.conversation_uuid order by d.id desc limit 1) as last
       from dm_conversation_members m where ${where}
       order by m.last_message_at desc, m.conversation_uuid limit ?2 offset ?3`,
    ).bind(me, page.limit, page.offset),
    env.DB.prepare(`select count(*) as n from dm_conversation_members m where ${where}`).bind(me),
  ]);
  const data: ConversationSummary[] = rows.results.map((r) => ({
    conversationUuid: r.conversation_uuid as string,
    peerUuid: r.peer_uuid as string,
    unread: r.unread as number,
    isFriend: r.is_friend === 1,
    lastMessageAt: new Date(r.last_message_at as number).toISOString(),
    lastMessage: r.last ? toDmMessage(JSON.parse(r.last as string) as MessageRow) : null,
  }));
  return { data, total: (total.results[0]?.n as number) ?? 0 };
}

/** `me`'s unread messages in all, and per tab, over the conversations `conversationPage` lists. */
export async function unreadCounts(env: Env, me: string) {
  const row = await env.DB.prepare(
    `select coalesce(sum(m.unread), 0) as total,
            coalesce(sum(case when ${friendExists} then m.unread else 0 end), 0) as friends,
            coalesce(sum(case when m.unread > 0 then 1 else 0 end), 0) as conversations
     from dm_conversation_members m where m.user_uuid = ?1 and ${notBlocked} and ${peerActive}`,
  )
    .bind(me)
    .first<{ total: number; friends: number; conversations: number }>();
  const total = row?.total ?? 0;
  const friends = row?.friends ?? 0;
  return {
    unread: total,
    conversations: row?.conversations ?? 0,
    tabs: { FRIENDS: friends, OTHERS: total - friends, UNSET: total },
  };
}

/** Whether `uuid` lets only friends write (dm_settings; no row: anyone may). */
export async function friendsOnly(env: Env, uuid: string): Promise<boolean> {
  const row = await env.DB.prepare(`select friends_only from dm_settings where user_uuid = ?1`)
    .bind(uuid)
    .first<{ friends_only: number }>();
  return row?.friends_only === 1;
}

export async function setFriendsOnly(env: Env, uuid: string, on: boolean) {
  await env.DB.prepare(
    `insert into dm_settings (user_uuid, friends_only, updated_at) values (?1, ?2, ?3)
     on conflict (user_uuid) do update set friends_only = ?2, updated_at = ?3`,
  )
    .bind(uuid, on ? 1 : 0, Date.now())
    .run();
}

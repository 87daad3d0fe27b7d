import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env";
import { caller, requireAnyToken, requireUser } from "../lib/auth";
import { ApiError, badRequest, forbidden } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { takeAttempt } from "../lib/rate-limit";
import { cleanText, fields, valid } from "../lib/validate";
import { notifyUsers } from "../queues/user-notifications";
import { blockedEitherWay } from "./blocks";
import {
  conversationBetween,
  conversationPage,
  DM_PAGE_MAX,
  DM_TABS,
  DM_TEXT_MAX,
  friendsOnly,
  markRead,
  membership,
  messagePage,
  setFriendsOnly,
  storeMessage,
  unreadCounts,
} from "./dm-store";
import { friendshipOf } from "./friendship";
import { SOCIAL_MSG } from "./messages";
import { activeUserOr404, profilesOf } from "./people";

/**
 * Direct messages (issue 16): our own chat in place of CometChat's one-to-one messages.
 * Anyone may write to anyone, unless the recipient lets only friends write (PUT
 * /direct-messages/settings) or a block stands either way. A user (or bot) token reads and
 * writes its own conversations; a ghost reads, and has none (lib/auth.ts refuses its
 * writes everywhere); guests have no account to write from. A conversation is read only by
 * its two sides: anyone else gets 404, never a hint that it exists.
 */
export const directMessageRoutes = new Hono<AppEnv>();

const text = z
  .string({ error: "text must be a string" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "text must not be empty")
      .max(DM_TEXT_MAX, `text must be at most ${DM_TEXT_MAX} characters`)
      .refine(
        (s) => cleanText(s, true),
        "text must not contain control characters or broken unicode",
      ),
  );

const sendBody = z.strictObject(
  { toUuid: fields.uuid, text },
  {
    error: (i) =>
      i.code === "unrecognized_keys" ? `Unknown field(s): ${i.keys.join(", ")}` : undefined,
  },
);
const convParam = z.object({ uuid: fields.uuid });
const messagesQuery = z
  .object({
    before: z.coerce.number().int().min(1, "before must be a message id").optional(),
    after: z.coerce.number().int().min(0, "after must be a message id").optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1, "limit must be at least 1")
      .max(DM_PAGE_MAX, `limit must be at most ${DM_PAGE_MAX}`)
      .default(50),
  })
  .refine(
    (q) => q.before === undefined || q.after === undefined,
    "Send before or after, not both.",
  );
const listQuery = limitOffset(DM_PAGE_MAX, 20).extend({
  tab: z.enum(DM_TABS, { error: `tab must be one of ${DM_TABS.join(", ")}` }).default("UNSET"),
});
const readBody = z
  .strictObject({ upTo: z.number().int().min(0, "upTo must be a message id").optional() })
  .default({});

/** A ghost (or any token without an account) has no conversations: lists are empty for it. */
const accountOf = (c: Parameters<typeof caller>[0]) => {
  const who = caller(c, ["user", "bot", "guest", "ghost"]);
  return who.type === "user" || who.type === "bot" ? who.uuid : null;
};

/** GET /direct-messages/conversations?tab&limit&offset: my conversations, newest first. */
directMessageRoutes.get(
  "/direct-messages/conversations",
  requireAnyToken,
  valid("query", listQuery),
  async (c) => {
    const q = c.req.valid("query");
    const me = accountOf(c);
    if (!me) return c.json({ data: [], total: 0, limit: q.limit, offset: q.offset, tab: q.tab });
    const page = await conversationPage(c.env, me, q.tab, q);
    const people = await profilesOf(
      c.env,
      page.data.map((d) => d.peerUuid),
    );
    const data = page.data.map((d) => ({ ...d, peer: people.get(d.peerUuid) ?? null }));
    return c.json({ data, total: page.total, limit: q.limit, offset: q.offset, tab: q.tab });
  },
);

/** GET /direct-messages/unread-count: unread messages in all, per tab, and how many conversations have some. */
directMessageRoutes.get("/direct-messages/unread-count", requireAnyToken, async (c) => {
  const me = accountOf(c);
  if (!me)
    return c.json({ unread: 0, conversations: 0, tabs: { FRIENDS: 0, OTHERS: 0, UNSET: 0 } });
  return c.json(await unreadCounts(c.env, me));
});

/** GET /direct-messages/settings and PUT `{friendsOnly}`: who may write to me. */
directMessageRoutes.get("/direct-messages/settings", requireUser, async (c) =>
  c.json({ friendsOnly: await friendsOnly(c.env, caller(c).uuid) }),
);
directMessageRoutes.put(
  "/direct-messages/settings",
  requireUser,
  valid(
    "json",
    z.strictObject({ friendsOnly: z.boolean({ error: "friendsOnly must be true or false" }) }),
  ),
  async (c) => {
    const on = c.req.valid("json").friendsOnly;
    await setFriendsOnly(c.env, caller(c).uuid, on);
    return c.json({ friendsOnly: on });
  },
);

/**
 * GET /direct-messages/with/{userUuid}: the conversation with that person as the page
 * opens it: its uuid (null before the first message), my unread count there, and whether I
 * may write (and why not).
 */
directMessageRoutes.get(
  "/direct-messages/with/:uuid",
  requireUser,
  valid("param", convParam),
  async (c) => {
    const me = caller(c).uuid;
    const peer = await activeUserOr404(c.env, c.req.valid("param").uuid);
    const refusal = peer.uuid === me ? SOCIAL_MSG.dmSelf : await writeRefusal(c.env, me, peer.uuid);
    const conversationUuid = await conversationBetween(c.env, me, peer.uuid);
    const mine = conversationUuid ? await membership(c.env, me, conversationUuid) : null;
    const people = await profilesOf(c.env, [peer.uuid]);
    return c.json({
      conversationUuid,
      peer: people.get(peer.uuid) ?? null,
      unread: mine?.unread ?? 0,
      isFriend: !!(await friendshipOf(c.env, me, peer.uuid)),
      canMessage: refusal === null,
      reason: refusal,
    });
  },
);

/** Why `from` may not write to `to` now, or null. */
async function writeRefusal(env: AppEnv["Bindings"], from: string, to: string) {
  if (await blockedEitherWay(env, from, to)) return SOCIAL_MSG.dmBlocked;
  if ((await friendsOnly(env, to)) && !(await friendshipOf(env, from, to)))
    return SOCIAL_MSG.dmFriendsOnly;
  return null;
}

/**
 * POST /direct-messages `{toUuid, text}` → 201 the message. Refused: to myself (400), to a
 * missing account (404), across a block or a friends-only setting (403), past the sender's
 * limits (429: dmPerSender, and dmNewConversationPerSender for a first message). The
 * recipient is notified (kind direct_message, at most once a minute per conversation).
 */
directMessageRoutes.post("/direct-messages", requireUser, valid("json", sendBody), async (c) => {
  const from = caller(c);
  const { toUuid, text: body } = c.req.valid("json");
  if (toUuid === from.uuid) throw badRequest(SOCIAL_MSG.dmSelf);
  const to = await activeUserOr404(c.env, toUuid);
  const refusal = await writeRefusal(c.env, from.uuid, to.uuid);
  if (refusal) throw forbidden(refusal);
  const existing = await conversationBetween(c.env, from.uuid, to.uuid);
  await takeAttempt(c.env, [{ rule: "dmPerSender", key: from.uuid }], SOCIAL_MSG.dmTooMany);
  if (!existing)
    await takeAttempt(
      c.env,
      [{ rule: "dmNewConversationPerSender", key: from.uuid }],
      SOCIAL_MSG.dmTooManyPeople,
    );
  const message = await storeMessage(c.env, from.uuid, to.uuid, body);
  const name = from.user.nickname ?? "Someone";
  await notifyUsers(c.env, [to.uuid], {
    kind: "direct_message",
    title: `${name} sent you a message`.slice(0, 100),
    body: body.slice(0, 200),
    data: {
      conversationUuid: message.conversationUuid,
      fromUuid: from.uuid,
      url: `/messages/${from.uuid}`,
    },
    throttleKey: `dm:${message.conversationUuid}`,
    throttleSeconds: 60,
  }).catch((err) => console.error("direct message notification failed", err));
  return c.json(message, 201);
});

/** GET /direct-messages/conversations/{uuid}/messages?before|after&limit: a page, oldest first. */
directMessageRoutes.get(
  "/direct-messages/conversations/:uuid/messages",
  requireAnyToken,
  valid("param", convParam),
  valid("query", messagesQuery),
  async (c) => {
    const uuid = c.req.valid("param").uuid;
    const me = accountOf(c);
    if (!me || !(await membership(c.env, me, uuid))) throw new ApiError(404, SOCIAL_MSG.dmNotFound);
    return c.json(await messagePage(c.env, uuid, c.req.valid("query")));
  },
);

/** POST /direct-messages/conversations/{uuid}/read `{upTo?}`: marks my side read; answers what stays unread. */
directMessageRoutes.post(
  "/direct-messages/conversations/:uuid/read",
  requireUser,
  valid("param", convParam),
  valid("json", readBody),
  async (c) => {
    const uuid = c.req.valid("param").uuid;
    const row = await markRead(c.env, caller(c).uuid, uuid, c.req.valid("json").upTo);
    if (!row) throw new ApiError(404, SOCIAL_MSG.dmNotFound);
    return c.json({ conversationUuid: uuid, ...row });
  },
);

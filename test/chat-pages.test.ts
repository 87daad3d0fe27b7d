import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RULES } from "../workers/lib/abuse-limits";
import { signUp, webSessionCookie, type TestAccount } from "./helpers";
import { social } from "./social-helpers";

/**
 * The messages pages as the server renders them (issue 16), and the store's invariants
 * under concurrency and floods of new conversations.
 */
const SITE = "http://hangout.test";
const page = (path: string, cookie?: string) =>
  SELF.fetch(`${SITE}${path}`, { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
const send = (from: TestAccount, to: TestAccount, text: string) =>
  social("/direct-messages", { token: from.token, body: { toUuid: to.uuid, text } });

describe("the messages pages", () => {
  it("need a session: without one they send you to log in", async () => {
    for (const path of ["/messages", `/messages/${crypto.randomUUID()}`]) {
      const res = await page(path);
      expect(res.status).toBe(302);
      expect(res.headers.get("Location")).toMatch(/^\/login/);
    }
  });

  it("render my conversations with their unread counts, and a conversation's lines", async () => {
    const [me, pal] = [await signUp(), await signUp()];
    await send(pal, me, "first paint hello");
    const cookie = await webSessionCookie(me.token);
    const list = await page("/messages", cookie);
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain("first paint hello");
    expect(html).toContain('data-testid="conversation-unread"');
    const conv = await (await page(`/messages/${pal.uuid}`, cookie)).text();
    expect(conv).toContain("first paint hello");
    expect(conv).toContain('data-testid="message-input"');
    // No bearer token ever reaches the page.
    expect(conv).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it("a profile that does not exist is a 404 page, not a crash", async () => {
    const me = await signUp();
    const res = await page(`/messages/${crypto.randomUUID()}`, await webSessionCookie(me.token));
    expect(res.status).toBe(404);
    expect((await page("/messages/not-a-uuid", await webSessionCookie(me.token))).status).toBe(404);
  });
});

describe("the store under pressure", () => {
  it("sends and mark-reads racing leave the unread count equal to the lines after the read mark", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const conv = (await send(ann, bob, "start")).body.conversationUuid as string;
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2
          ? send(ann, bob, `line ${i}`)
          : social(`/direct-messages/conversations/${conv}/read`, { token: bob.token, body: {} }),
      ),
    );
    const { readUpTo } = (
      await social(`/direct-messages/conversations/${conv}/read`, {
        token: bob.token,
        body: { upTo: 0 },
      })
    ).body;
    const all = (
      await social(`/direct-messages/conversations/${conv}/messages?limit=100`, {
        token: bob.token,
      })
    ).body.data as { id: number }[];
    const after = all.filter((m) => m.id > readUpTo).length;
    const listed = (await social("/direct-messages/conversations", { token: bob.token })).body;
    expect(listed.data[0].unread).toBe(after);
    expect((await social("/direct-messages/unread-count", { token: bob.token })).body.unread).toBe(
      after,
    );
  });

  it("one sender starts at most dmNewConversationPerSender conversations an hour; replies are not new", async () => {
    const spammer = await signUp();
    const limit = RULES.dmNewConversationPerSender.limit;
    const people = await Promise.all(Array.from({ length: limit + 1 }, () => signUp()));
    for (const p of people.slice(0, limit)) expect((await send(spammer, p, "hi")).status).toBe(201);
    const over = await send(spammer, people[limit], "hi");
    expect(over.status).toBe(429);
    expect(over.body.message).toMatch(
      /^You have started too many new conversations; try again in .+\.$/,
    );
    // An existing conversation still takes messages.
    expect((await send(spammer, people[0], "still talking")).status).toBe(201);
    expect(
      (await social("/direct-messages/conversations", { token: people[limit].token })).body.total,
    ).toBe(0);
  });
});

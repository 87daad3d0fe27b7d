import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, madeAccount, shot, useBrowser } from "./browser";

// Issue 16, direct messages in Debian Chromium: two friends in two pages; a message sent in
// one appears in the other without a reload, and the unread count clears once it is read.
const base = () => inject("baseURL");
const getBrowser = useBrowser();
const PASSWORD = "a long enough password";
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A fresh account (unique e-mail and nickname); its uuid, token and e-mail. */
const account = (nickname: string) => madeAccount(nickname, PASSWORD);

async function open(email: string, to: string, viewport = DESKTOP) {
  const context = await getBrowser().newContext({ viewport });
  const page = await logIn(context, email, to, PASSWORD);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { context, page, errors };
}

const unreadBadge = (page: Page) => page.getByTestId("nav-messages-unread");
const messageTexts = (page: Page) => page.getByTestId("message").allTextContents();

describe("direct messages", () => {
  it("two friends talk in two pages: live without reload, and the unread count clears when read", async () => {
    const tag = Date.now().toString(36).slice(-4);
    const ann = await account(`Ann${tag}`);
    const bob = await account(`Bob${tag}`);
    const inv = await api<{ uuid: string }>("/api/social-service/friend-invitations", {
      method: "POST",
      token: ann.token,
      body: JSON.stringify({ userUuid: bob.uuid }),
    });
    await api("/api/social-service/friend-invitations/handle-friend", {
      method: "POST",
      token: bob.token,
      body: JSON.stringify({ invitationUuid: inv.uuid, status: "accepted" }),
    });

    // Ann starts from Bob's profile: the Message button opens the conversation.
    const a = await open(ann.email, `/profile/${bob.uuid}`);
    await a.page.getByTestId("message").click();
    await a.page.waitForURL((u) => u.pathname === `/messages/${bob.uuid}`);
    await a.page.getByText(`Say hello to ${bob.nickname}.`).waitFor();

    // Bob waits on his conversation list.
    const b = await open(bob.email, "/messages");
    await expect(unreadBadge(b.page).count()).resolves.toBe(0);

    const hello = `hello bob ${tag}`;
    await a.page.getByTestId("message-input").fill(hello);
    await a.page.getByTestId("send-message").click();
    await expect.poll(() => messageTexts(a.page)).toEqual([expect.stringContaining(hello)]);

    // Bob's header and list learn of it without a reload (they refresh every 15 s).
    await unreadBadge(b.page).waitFor({ timeout: 30_000 });
    expect(await unreadBadge(b.page).textContent()).toBe("1");
    const row = b.page.locator(`[data-testid="conversation"][data-peer="${ann.uuid}"]`);
    await row.getByTestId("conversation-unread").waitFor({ timeout: 30_000 });
    await b.page.getByTestId("tab-FRIENDS-unread").waitFor();
    await shot(b.page, "messages-list-unread-1440");

    // Opening it reads it: the count clears.
    await row.click();
    await b.page.waitForURL((u) => u.pathname === `/messages/${ann.uuid}`);
    await expect.poll(() => messageTexts(b.page)).toEqual([expect.stringContaining(hello)]);
    await expect.poll(() => unreadBadge(b.page).count(), { timeout: 20_000 }).toBe(0);

    // Now both pages are open: each new line appears on the other side without a reload.
    const second = `are you coming tonight ${tag}`;
    await a.page.getByTestId("message-input").fill(second);
    await a.page.keyboard.press("Enter");
    await expect
      .poll(() => messageTexts(b.page), { timeout: 15_000 })
      .toEqual([expect.stringContaining(hello), expect.stringContaining(second)]);
    const reply = `yes, see you there ${tag}`;
    await b.page.getByTestId("message-input").fill(reply);
    await b.page.getByTestId("send-message").click();
    await expect
      .poll(() => messageTexts(a.page), { timeout: 15_000 })
      .toEqual([
        expect.stringContaining(hello),
        expect.stringContaining(second),
        expect.stringContaining(reply),
      ]);
    // Read while open: neither side is left with an unread badge.
    await expect.poll(() => unreadBadge(b.page).count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => unreadBadge(a.page).count(), { timeout: 20_000 }).toBe(0);
    await shot(a.page, "messages-conversation-1440");
    await shot(b.page, "messages-conversation-bob-1440");

    // The same pages at phone width, in Spanish, for a person to look at.
    const phone = await b.context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(`${base()}/messages/${ann.uuid}?lang=es`);
    await phone.getByTestId("message-input").waitFor();
    await shot(phone, "messages-conversation-390-es");
    await phone.goto(`${base()}/messages?lang=es`);
    await phone.getByTestId("conversation").first().waitFor();
    await shot(phone, "messages-list-390-es");
    await phone.goto(`${base()}/messages?lang=en`);

    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await a.context.close();
    await b.context.close();
  });
});

import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, shot, useBrowser, logIn, tokenFor } from "./browser";

// Moderator actions and the kicked screen (issue 4, "Web pages"): Sam owns a room, Kim
// listens; Sam kicks Kim with a reason, bans her, and unbans her, all from her avatar's menu.
const SAM = "dj.sam@hangout.local";
const KIM = "kim@hangout.local";
const REASON = "Too many caps in chat, take five";

const getBrowser = useBrowser();

const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);
const kindOf = (page: Page) =>
  page
    .getByTestId("room-kicked")
    .getAttribute("data-kind", { timeout: 2000 })
    .catch(() => null);

describe("rooms: moderator actions and the kicked screen", () => {
  it("Sam kicks Kim with a reason, bans her, and unbans her", async () => {
    const samToken = await tokenFor(SAM);
    const room = await api<{ uuid: string; slug: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: samToken,
        body: JSON.stringify({
          name: `Moderation ${Date.now().toString(36)}`,
          design: "CLUB",
          description: "House rules apply.",
        }),
      },
    );
    const roomPath = `/rooms/${room.slug}`;
    const errors: string[] = [];

    const samCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const kimCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const sam = await logIn(samCtx, SAM, roomPath);
    sam.on("pageerror", (e) => errors.push(`sam: ${e}`));
    await expect.poll(() => statusOf(sam), { timeout: 15_000 }).toBe("open");
    const kim = await logIn(kimCtx, KIM, roomPath);
    kim.on("pageerror", (e) => errors.push(`kim: ${e}`));
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");

    // Kim shows up on Sam's floor with a menu; Kim sees no menu on Sam.
    const kimOnFloor = sam.getByTestId("floor").getByTestId("user-menu-trigger");
    await expect.poll(() => kimOnFloor.count(), { timeout: 10_000 }).toBe(1);
    expect(await kim.getByTestId("user-menu-trigger").count()).toBe(0);
    const kimUuid = (await kimOnFloor.getAttribute("data-user"))!;

    // Keyboard: Enter opens, the first item takes focus, Escape closes and focus returns.
    await kimOnFloor.focus();
    await sam.keyboard.press("Enter");
    await expect.poll(() => sam.getByTestId("mod-menu").isVisible()).toBe(true);
    expect(await sam.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("menuitem");
    await sam.keyboard.press("ArrowDown");
    await shot(sam, "moderation-01-menu-1440");
    await sam.keyboard.press("Escape");
    await expect.poll(() => sam.getByTestId("mod-menu").count()).toBe(0);
    expect(await sam.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe(
      "user-menu-trigger",
    );

    // Chat: Kim writes two lines; Sam pins the first (both see it above the chat) and deletes the second.
    const kimChat = kim.getByTestId("chat-panel");
    const samChat = sam.getByTestId("chat-panel");
    for (const line of ["Welcome, read the house rules", "SPAM SPAM SPAM"]) {
      await kimChat.getByTestId("chat-input").fill(line);
      await kimChat.getByTestId("chat-input").press("Enter");
      await expect
        .poll(() => samChat.getByTestId("chat-line").filter({ hasText: line }).count(), {
          timeout: 10_000,
        })
        .toBe(1);
    }
    await samChat.getByTestId("chat-line").filter({ hasText: "house rules" }).hover();
    await samChat
      .getByTestId("chat-line")
      .filter({ hasText: "house rules" })
      .getByTestId("chat-pin")
      .click();
    await expect
      .poll(
        () =>
          kimChat
            .getByTestId("pinned-messages")
            .textContent()
            .catch(() => ""),
        { timeout: 10_000 },
      )
      .toContain("Welcome, read the house rules");
    await samChat.getByTestId("chat-line").filter({ hasText: "SPAM" }).hover();
    await samChat
      .getByTestId("chat-line")
      .filter({ hasText: "SPAM" })
      .getByTestId("chat-delete")
      .click();
    await expect
      .poll(() => kimChat.getByTestId("chat-line").filter({ hasText: "SPAM" }).count(), {
        timeout: 10_000,
      })
      .toBe(0);
    await shot(sam, "moderation-01b-pinned-1440");
    // Only moderators get the unpin control; Sam unpins and the pin leaves both pages.
    expect(await kimChat.getByTestId("unpin").count()).toBe(0);
    await samChat
      .getByTestId("pinned-message")
      .filter({ hasText: "house rules" })
      .getByTestId("unpin")
      .click();
    await expect
      .poll(() => kimChat.getByTestId("pinned-messages").count(), { timeout: 10_000 })
      .toBe(0);
    await expect
      .poll(() => samChat.getByTestId("pinned-messages").count(), { timeout: 10_000 })
      .toBe(0);

    // Kick with a reason: Kim's page shows the kicked screen with Sam's words.
    await kimOnFloor.click();
    await sam.getByTestId("mod-kick").click();
    await sam.getByTestId("kick-reason").fill(REASON);
    await sam.screenshot({ path: ".e2e/shots/moderation-02-kick-reason-1440.png" });
    await sam.getByTestId("kick-confirm").click();
    await expect.poll(() => kindOf(kim), { timeout: 10_000 }).toBe("reason");
    await expect(kim.getByTestId("kick-reason-text").textContent()).resolves.toBe(REASON);
    await expect.poll(() => kimOnFloor.count(), { timeout: 10_000 }).toBe(0);
    await shot(kim, "moderation-03-kicked-1440");
    await kim.setViewportSize({ width: 390, height: 844 });
    await shot(kim, "moderation-04-kicked-390");
    await kim.setViewportSize({ width: 1440, height: 900 });

    // A kick keeps Kim out for a while; Sam lifts it (REST) so Kim can come back in.
    await api(`/api/room-service/roomUserRoles/${room.uuid}`, {
      method: "DELETE",
      token: samToken,
      body: JSON.stringify({ userUuid: kimUuid, role: "kicked" }),
    });
    await kim.reload();
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");
    await expect.poll(() => kimOnFloor.count(), { timeout: 10_000 }).toBe(1);

    // Ban from the menu: Kim is thrown out, and reloading shows the banned screen at once.
    await kimOnFloor.click();
    await sam.getByTestId("mod-ban").click();
    await expect.poll(() => kindOf(kim), { timeout: 10_000 }).toBe("banned");
    await kim.reload();
    await expect.poll(() => kindOf(kim), { timeout: 10_000 }).toBe("banned");
    await expect(kim.getByRole("link", { name: "All rooms" }).count()).resolves.toBeGreaterThan(0);
    await shot(kim, "moderation-05-banned-1440");
    await kim.setViewportSize({ width: 390, height: 844 });
    await shot(kim, "moderation-06-banned-390");
    await kim.setViewportSize({ width: 1440, height: 900 });

    // Sam sees Kim in the banned list and unbans her from there.
    const banned = sam.getByTestId("restricted").getByTestId("user-menu-trigger");
    await expect.poll(() => banned.count(), { timeout: 10_000 }).toBe(1);
    await shot(sam, "moderation-07-owner-1440");
    await sam.setViewportSize({ width: 390, height: 844 });
    for (const b of await sam.getByTestId("toasts").locator("button").all())
      await b.click({ timeout: 1000 }).catch(() => {});
    await banned.click();
    await sam.screenshot({ path: ".e2e/shots/moderation-08-unban-menu-390.png" });
    await sam.getByTestId("mod-unban").click();
    await expect.poll(() => sam.getByTestId("restricted").count(), { timeout: 10_000 }).toBe(0);
    await kim.reload();
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");

    // Sam hands the room to Kim from her menu (asked twice): Kim now moderates, Sam no longer does.
    await sam.setViewportSize({ width: 1440, height: 900 });
    await expect.poll(() => kimOnFloor.count(), { timeout: 10_000 }).toBe(1);
    await kimOnFloor.click();
    await sam.getByTestId("mod-make-owner").click();
    await expect.poll(() => sam.getByTestId("give-room").isVisible()).toBe(true);
    await sam.screenshot({ path: ".e2e/shots/moderation-09-give-room-1440.png" });
    await sam.getByTestId("give-room-confirm").click();
    await expect
      .poll(() => kim.getByTestId("floor").getByTestId("user-menu-trigger").count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await expect
      .poll(() => sam.getByTestId("user-menu-trigger").count(), { timeout: 10_000 })
      .toBe(0);
    const owner = await api<{ ownerUuid: string }>(`/api/room-service/rooms/${room.uuid}`, {
      token: samToken,
    });
    expect(owner.ownerUuid).toBe(kimUuid);
    await shot(kim, "moderation-10-new-owner-1440");

    expect(errors).toEqual([]);
    await samCtx.close();
    await kimCtx.close();
  });
});

import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// Issue 14's journey in Debian Chromium: lou follows dj.sam on his profile; dj.sam takes a
// seat in a room; lou's bell shows it; lou blocks kim in the room and no longer sees her chat
// (sam still does).
const base = () => inject("baseURL");
const getBrowser = useBrowser();
const SAM = "00000000-0000-4000-8000-000000000003";
const KIM = "00000000-0000-4000-8000-000000000005";
const VIEW = { viewport: { width: 1440, height: 900 } };

const statusOf = (page: Page) =>
  page
    .getByTestId("room")
    .getAttribute("data-status", { timeout: 2000 })
    .catch(() => null);
const chatLines = (page: Page, text: string) =>
  page.getByTestId("chat-panel").getByTestId("chat-line").filter({ hasText: text }).count();

describe("follow, go live, block", () => {
  it("lou hears dj.sam went live through the bell, then blocks kim and her chat is gone for lou only", async () => {
    const [louToken, samToken] = [
      await tokenFor("lou@hangout.local"),
      await tokenFor("dj.sam@hangout.local"),
    ];
    // Whatever ran before: no blocks between lou and sam or kim.
    for (const who of [SAM, KIM])
      await fetch(`${base()}/api/social-service/blocked-users/${who}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${louToken}` },
      });
    // Sam's queue: two demo songs; his own new room (its own fan-out key).
    const demo = (
      await api<{ data: { songId: string; status: string }[] }>(
        "/api/upload-service/songs/public?limit=50",
      )
    ).data.filter((s) => s.status === "VERIFIED");
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token: samToken });
    for (const s of demo.slice(0, 2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: samToken,
        body: JSON.stringify({ songId: s.songId }),
      });
    const roomName = `Live ${Date.now().toString(36)}`;
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: samToken,
      body: JSON.stringify({ name: roomName, design: "CLUB" }),
    });
    const path = `/rooms/${room.slug}`;
    const errors: string[] = [];

    // Lou follows dj.sam on his profile.
    const lou = await logIn(
      await getBrowser().newContext(VIEW),
      "lou@hangout.local",
      `/profile/${SAM}`,
    );
    lou.on("pageerror", (e) => errors.push(`lou: ${e}`));
    await lou.locator('[data-testid="follow"], [data-testid="unfollow"]').first().waitFor();
    if (await lou.getByTestId("follow").isVisible()) await lou.getByTestId("follow").click();
    await lou.getByTestId("unfollow").waitFor();

    // Sam takes a seat.
    const sam = await logIn(await getBrowser().newContext(VIEW), "dj.sam@hangout.local", path);
    sam.on("pageerror", (e) => errors.push(`sam: ${e}`));
    await expect.poll(() => statusOf(sam), { timeout: 15_000 }).toBe("open");
    await sam.getByTestId("take-seat").click();
    await expect
      .poll(() => sam.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBeTruthy();

    // Lou's bell shows it (the queue takes a moment; each look opens the bell afresh).
    await expect
      .poll(
        async () => {
          await lou.reload();
          await lou.getByTestId("bell").click();
          return (await lou.getByTestId("bell-panel").textContent()) ?? "";
        },
        { timeout: 20_000, interval: 500 },
      )
      .toContain(`in ${roomName}`);
    const item = lou
      .getByTestId("bell-panel")
      .getByTestId("notification")
      .filter({
        hasText: `in ${roomName}`,
      });
    expect(await item.textContent()).toContain("DJ Sam is DJing");
    expect(await item.getAttribute("data-unread")).toBe("true");
    await shot(lou, "social-live-bell-1440");
    await lou.keyboard.press("Escape");

    // Lou and kim join sam's room; kim's line reaches lou until lou blocks her.
    await lou.goto(`${base()}${path}`);
    await expect.poll(() => statusOf(lou), { timeout: 15_000 }).toBe("open");
    const kim = await logIn(await getBrowser().newContext(VIEW), "kim@hangout.local", path);
    kim.on("pageerror", (e) => errors.push(`kim: ${e}`));
    await expect.poll(() => statusOf(kim), { timeout: 15_000 }).toBe("open");
    const say = async (text: string) => {
      await kim.getByTestId("chat-panel").getByTestId("chat-input").fill(text);
      await kim.getByTestId("chat-panel").getByTestId("chat-input").press("Enter");
      await expect.poll(() => chatLines(sam, text), { timeout: 10_000 }).toBe(1);
    };
    await say("first line from kim");
    await expect.poll(() => chatLines(lou, "first line from kim"), { timeout: 10_000 }).toBe(1);

    const kimForLou = lou.locator(`[data-testid="person-menu-trigger"][data-user="${KIM}"]`);
    await expect.poll(() => kimForLou.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await kimForLou.first().click();
    const menu = lou.getByTestId("mod-menu");
    await menu.getByTestId("menu-block").click();
    await menu.getByTestId("block-confirm").click();
    await lou.getByText("is blocked.", { exact: false }).waitFor();

    // Her earlier line leaves lou's chat, and a new one never arrives; sam sees both.
    await expect.poll(() => chatLines(lou, "first line from kim"), { timeout: 10_000 }).toBe(0);
    await say("second line from kim");
    await new Promise((r) => setTimeout(r, 1000));
    expect(await chatLines(lou, "second line from kim")).toBe(0);
    expect(await chatLines(sam, "first line from kim")).toBe(1);
    await shot(lou, "social-live-blocked-chat-1440");

    await fetch(`${base()}/api/social-service/blocked-users/${KIM}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${louToken}` },
    });
    expect(errors).toEqual([]);
    for (const p of [lou, sam, kim]) await p.context().close();
  });
});

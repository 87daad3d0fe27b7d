import { describe, expect, it } from "vitest";
import { api, logIn, madeAccount, shot, useBrowser } from "./browser";

// Issue 18: a DJ sees songs similar to what is playing and adds one to their queue. The
// DJ's own crate puts two demo songs side by side, so the local answer ranks the second
// ("In the same crates") for the first; the page's button goes through the queue API.
const getBrowser = useBrowser();

type Song = { songId: string; trackName: string; status: string };

describe("rooms: similar to what's playing", () => {
  it("a DJ gets suggestions for the playing song and adds one to their queue", async () => {
    const demo = (
      await api<{ data: Song[] }>("/api/upload-service/songs/public?limit=50")
    ).data.filter((s) => s.status === "VERIFIED");
    expect(demo.length, "public demo songs").toBeGreaterThanOrEqual(3);
    const [playing, crated] = demo;

    const dj = await madeAccount("Similar DJ");
    const auth = { token: dj.token };
    const crate = await api<{ crateUuid: string }>("/api/playlist-service/crate", {
      method: "POST",
      ...auth,
      body: JSON.stringify({ crateName: "Late night" }),
    });
    for (const s of [playing, crated])
      await api(`/api/playlist-service/crate/${crate.crateUuid}/songs`, {
        method: "POST",
        ...auth,
        body: JSON.stringify({ songId: s.songId }),
      });
    await api("/api/playlist-service/crate/queue/songs", {
      method: "POST",
      ...auth,
      body: JSON.stringify({ songId: playing.songId }),
    });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      ...auth,
      body: JSON.stringify({ name: `Similar ${Date.now().toString(36)}`, numberOfDjs: 2 }),
    });
    const roomPath = `/rooms/${room.slug}`;

    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 1000 } });
    const errors: string[] = [];
    const page = await logIn(ctx, dj.email, roomPath, dj.password);
    page.on("pageerror", (e) => errors.push(String(e)));
    await expect
      .poll(() => page.getByTestId("room").getAttribute("data-status"), { timeout: 20_000 })
      .toBe("open");
    // Not a DJ yet: no panel.
    expect(await page.getByTestId("similar-tracks").count()).toBe(0);

    await page.getByTestId("take-seat").click();
    await page.getByTestId("np-track").filter({ hasText: playing.trackName }).waitFor();
    const panel = page.getByTestId("similar-tracks");
    await panel.waitFor();
    const items = panel.getByTestId("similar-song");
    await items.first().waitFor();
    const titles = await items.allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.length).toBeLessThanOrEqual(5);
    // The song playing is never suggested for itself; the crated one comes first, with why.
    expect(titles.some((t) => t.includes(playing.trackName))).toBe(false);
    const first = items.first();
    expect(await first.textContent()).toContain(crated.trackName);
    expect(await first.textContent()).toContain("In the same crates");
    await shot(page, "similar-tracks-desktop");

    await first.getByRole("button", { name: `Add “${crated.trackName}”`, exact: false }).click();
    await first.getByRole("button", { name: "Added" }).waitFor();
    const queue = await api<{ data: { songId: string }[] }>(
      "/api/playlist-service/crate/queue/songs?limit=50",
      auth,
    );
    expect(queue.data.map((s) => s.songId)).toContain(crated.songId);
    await shot(page, "similar-tracks-added");

    // Phone width, in Spanish.
    const phone = await getBrowser().newContext({
      viewport: { width: 390, height: 844 },
      locale: "es-ES",
    });
    await phone.addCookies([{ name: "tt-locale", value: "es", url: new URL(page.url()).origin }]);
    const p2 = await logIn(phone, dj.email, roomPath, dj.password);
    const panel2 = p2.getByTestId("similar-tracks");
    await panel2.getByTestId("similar-song").first().waitFor({ timeout: 20_000 });
    expect(await panel2.textContent()).toContain("Parecidas a lo que suena");
    await shot(p2, "similar-tracks-phone-es");
    expect(errors).toEqual([]);
    await ctx.close();
    await phone.close();
  });
});

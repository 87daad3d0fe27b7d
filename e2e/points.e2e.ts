import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// Points in the browser (issue 6): Kim DJs in a room, Lou likes the song, and Kim's points
// rise on /ranking (the season covering now is made here through the admin API). Also the
// admin seasons page (create, overlap refused), the ranking status list and the points dead
// letters page, at phone and desktop widths.
const KIM = "kim@hangout.local";
const KIM_UUID = "00000000-0000-4000-8000-000000000005";
const LOU = "lou@hangout.local";
const ADMIN = "admin@hangout.local";

interface Season {
  id: number;
  name: string;
}

const getBrowser = useBrowser();

/** Kim's points on the ranking page: her row's points, or 0 while she has no row. */
async function kimsPoints(page: Page): Promise<number> {
  const points = page.getByTestId("ranking-my-points");
  return (await points.count()) ? Number(await points.getAttribute("data-points")) : 0;
}

describe("points: a like in a room raises the DJ's points on the ranking page", () => {
  it("Kim plays, Lou likes, Kim's rank and points show on /ranking; admins manage seasons", async () => {
    const adminToken = await tokenFor(ADMIN, "admin-password");
    let season = await api<Season | null>("/api/merch-service/seasons/current");
    if (!season) {
      const now = Date.now();
      season = await api<Season>("/api/merch-service/points/season", {
        method: "POST",
        token: adminToken,
        body: JSON.stringify({
          name: `E2E season ${now.toString(36)}`,
          // (a season may not start in the past: it starts now, before Kim's song)
          startDate: new Date(now).toISOString(),
          endDate: new Date(now + 7 * 86_400_000).toISOString(),
        }),
      });
    }

    // Kim's queue holds two demo songs; she makes a room.
    const demo = (
      await api<{ data: { songId: string; status: string }[] }>(
        "/api/upload-service/songs/public?limit=50",
      )
    ).data.filter((s) => s.status === "VERIFIED");
    const kimToken = await tokenFor(KIM);
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token: kimToken });
    for (const s of demo.slice(0, 2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: kimToken,
        body: JSON.stringify({ songId: s.songId }),
      });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: kimToken,
      body: JSON.stringify({
        name: `Points ${Date.now().toString(36)}`,
        design: "CLUB",
        numberOfDjs: 2,
      }),
    });

    const kimCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const louCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    const kimRanking = await logIn(kimCtx, KIM, "/ranking");
    kimRanking.on("pageerror", (e) => errors.push(`kim: ${e}`));
    await expect
      .poll(() => kimRanking.getByTestId("ranking-heading").textContent(), { timeout: 10_000 })
      .toBe(season.name);
    const before = await kimsPoints(kimRanking);

    const kim = await kimCtx.newPage();
    kim.on("pageerror", (e) => errors.push(`kim room: ${e}`));
    await kim.goto(kimRanking.url().replace(/\/ranking.*$/, `/rooms/${room.slug}`));
    await expect
      .poll(() => kim.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await kim.getByTestId("take-seat").click();
    await expect
      .poll(() => kim.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBeTruthy();

    const lou = await logIn(louCtx, LOU, `/rooms/${room.slug}`);
    lou.on("pageerror", (e) => errors.push(`lou: ${e}`));
    await expect
      .poll(() => lou.getByTestId("room").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("open");
    await expect
      .poll(() => lou.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBeTruthy();
    await lou.getByTestId("vote-like").click();
    await expect
      .poll(() => kim.getByTestId("vote-like-count").textContent(), { timeout: 10_000 })
      .toBe("1");

    // The like travels room -> queue -> boards: Kim's points on the ranking page rise by 1.
    await expect
      .poll(
        async () => {
          await kimRanking.reload();
          return kimsPoints(kimRanking);
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(before + 1);
    await expect(kimRanking.getByTestId("ranking-row-me").count()).resolves.toBe(1);
    await expect(kimRanking.getByTestId("ranking-row-me").textContent()).resolves.toContain(
      "Kim Crate",
    );
    await shot(kimRanking, "points-01-ranking-1440");
    await kimRanking.setViewportSize({ width: 390, height: 844 });
    await shot(kimRanking, "points-02-ranking-390");

    // Her profile shows the same rank and points.
    await kimRanking.goto(kimRanking.url().replace(/\/ranking.*$/, "/profile"));
    await expect(kimRanking.getByTestId("rank-season").textContent()).resolves.toMatch(
      new RegExp(`Rank #\\d+\\s*${before + 1} points?$`),
    );
    await shot(kimRanking, "points-03-profile-390");

    // The public ranking API agrees.
    const status = await api<{ balance: number; rank: number }>(
      `/api/merch-service/points/ranking-status/${KIM_UUID}`,
    );
    expect(status.balance).toBe(before + 1);

    // Admin: the seasons page lists the season; an overlapping season is refused in the API's words.
    const adminCtx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const admin = await logIn(adminCtx, ADMIN, "/admin/seasons", "admin-password");
    admin.on("pageerror", (e) => errors.push(`admin: ${e}`));
    // Polled: the login lands by a client-side navigation, and the URL changes a moment before the page renders.
    await expect
      .poll(() => admin.getByTestId("season-row").filter({ hasText: season.name }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    const form = admin.getByTestId("season-create");
    await form.locator('input[name="name"]').fill(`Overlap ${Date.now().toString(36)}`);
    // Minutes from now, inside the current season (a start in the past is refused first).
    const soon = (minutes: number) =>
      new Date(Date.now() + minutes * 60_000).toISOString().slice(0, 16);
    await form.locator('input[name="startDate"]').fill(soon(5));
    await form.locator('input[name="endDate"]').fill(soon(10));
    await form.locator('button[type="submit"]').click();
    await expect
      .poll(() => admin.getByTestId("form-error").textContent(), { timeout: 10_000 })
      .toContain("cannot overlap");
    await shot(admin, "points-04-admin-seasons-1440");

    // A season far ahead is created and listed.
    const future = `Future ${Date.now().toString(36)}`;
    await form.locator('input[name="name"]').fill(future);
    await form.locator('input[name="startDate"]').fill("2090-01-01T00:00");
    await form.locator('input[name="endDate"]').fill("2090-02-01T00:00");
    await form.locator('button[type="submit"]').click();
    await expect
      .poll(() => admin.getByTestId("season-row").filter({ hasText: future }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    // Renamed in place, then deleted through the confirmation dialog.
    await admin.getByRole("button", { name: `Edit ${future}` }).click();
    const editing = admin.getByTestId("season-row").locator("form");
    await editing.locator('input[name="name"]').fill(`${future} renamed`);
    await editing.locator('button[type="submit"]').click();
    await expect
      .poll(
        () =>
          admin
            .getByTestId("season-row")
            .filter({ hasText: `${future} renamed` })
            .count(),
        { timeout: 10_000 },
      )
      .toBe(1);
    await admin.getByRole("button", { name: `Delete ${future} renamed` }).click();
    await admin.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await expect
      .poll(() => admin.getByTestId("season-row").filter({ hasText: future }).count(), {
        timeout: 10_000,
      })
      .toBe(0);
    await form.locator('input[name="name"]').fill(future);
    await form.locator('input[name="startDate"]').fill("2090-01-01T00:00");
    await form.locator('input[name="endDate"]').fill("2090-02-01T00:00");
    await form.locator('button[type="submit"]').click();
    await expect
      .poll(() => admin.getByTestId("season-row").filter({ hasText: future }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await admin.setViewportSize({ width: 390, height: 844 });
    await shot(admin, "points-05-admin-seasons-390");

    await admin.goto(admin.url().replace(/\/admin\/seasons.*$/, "/admin/ranking-status"));
    await expect
      .poll(
        () => admin.getByTestId("ranking-status-row").filter({ hasText: "Kim Crate" }).count(),
        { timeout: 10_000 },
      )
      .toBe(1);
    await admin.setViewportSize({ width: 1440, height: 900 });
    await shot(admin, "points-06-admin-ranking-status-1440");

    // The points dead letters (issue 12), from the admin nav: the page renders, rows or not.
    await admin.getByRole("link", { name: "Dead letters" }).click();
    await admin.getByRole("heading", { name: "Points dead letters" }).waitFor();
    await shot(admin, "points-07-admin-dead-letters-1440");

    expect(errors).toEqual([]);
    for (const c of [kimCtx, louCtx, adminCtx]) await c.close();
  });
});

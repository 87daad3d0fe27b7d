import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signUp, webSessionCookie } from "./helpers";
import { connect } from "./room-helpers";
import { createRoom } from "./room-service-helpers";
import { befriend } from "./social-helpers";

// The pages of room discovery (issue 20), rendered by the Worker as a browser gets them:
// /rooms takes its search and filters from the query string; the signed-in home page is
// the live rooms (busiest, friends') with its main button to /rooms, not the mock-up.
const SITE = "http://hangout.test";
const get = async (path: string, token?: string) =>
  SELF.fetch(`${SITE}${path}`, {
    headers: token ? { Cookie: await webSessionCookie(token) } : {},
    redirect: "manual",
  });
const tag = () => `w${crypto.randomUUID().slice(0, 8)}`;

describe("/rooms: search and filters from the query string", () => {
  it("shows only the rooms that match, with their genre; a mangled filter falls back, never a 500", async () => {
    const t = tag();
    const owner = await signUp();
    await createRoom(owner, { name: `Jazz ${t}`, genre: "jazz", design: "YACHT" });
    await createRoom(owner, { name: `Rock ${t}`, genre: "rock", design: "CLUB" });

    const res = await get(`/rooms?q=${t}&genre=jazz`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`Jazz ${t}`);
    expect(html).not.toContain(`Rock ${t}`);
    expect(html).toContain('data-testid="room-filters"');

    // An unknown genre and a huge search are ignored by the page (the API would 400).
    const mangled = await get(`/rooms?q=${t}&genre=polka&sort=loud&design=${"x".repeat(500)}`);
    expect(mangled.status).toBe(200);
    const both = await mangled.text();
    expect(both).toContain(`Jazz ${t}`);
    expect(both).toContain(`Rock ${t}`);

    // Nothing matches: the page says so.
    const none = await (await get(`/rooms?q=${t}&genre=metal`)).text();
    expect(none).toContain("No room matches");
  });
});

describe("the signed-in home page", () => {
  it("lists live rooms and where friends are, and its main button goes to /rooms", async () => {
    const t = tag();
    const me = await signUp();
    const friend = await signUp({ nickname: `Pal ${t}` });
    await befriend(me, friend);
    const r = await createRoom(friend, { name: `Hangout ${t}` });
    const socket = await connect(r.uuid, { uuid: friend.uuid, token: friend.token });

    const html = await (await get("/", me.token)).text();
    expect(html).toContain('data-testid="live-home"');
    const cta = html.match(/<a[^>]*data-testid="home-find-room"[^>]*>/)?.[0] ?? "";
    expect(cta).toContain('href="/rooms"');
    // The friends' row names the room and the friend in it.
    const friends = html.slice(html.indexOf('data-testid="home-friends"'));
    expect(friends).toContain(`Hangout ${t}`);
    expect(friends).toContain(`Pal ${t}`);
    // No marketing mock-up for a signed-in user.
    expect(html).not.toContain(">Nova<");
    socket.close();
  });

  it("a visitor still gets the marketing page", async () => {
    const html = await (await get("/")).text();
    expect(html).not.toContain('data-testid="live-home"');
    expect(html).toContain(">Nova<");
  });
});

import { env, listDurableObjectIds, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import { tellUserRooms } from "../workers/room-service/user-rooms";
import { accountWithRoles, guestToken, signUp, user } from "./helpers";
import { connect, seedQueue, takeSeat, type RoomClient } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";

// The attacks on who is on a socket and whether its room exists (issue 11). Each socket
// here goes through the real gateway (workers/room-connect.ts).

/** Opens a socket through the gateway; answers the HTTP status, and the socket on a 101. */
async function open(roomUuid: string, token: string) {
  const res = await SELF.fetch(`http://x/parties/room/${roomUuid}?token=${token}`, {
    headers: { Upgrade: "websocket" },
  });
  if (res.status !== 101) return { status: res.status, ws: null };
  const ws = res.webSocket!;
  const names: string[] = [];
  const closed = new Promise<number>((r) => ws.addEventListener("close", (e) => r(e.code)));
  ws.addEventListener("message", (e) => names.push(JSON.parse(String(e.data)).name));
  ws.accept();
  return { status: 101, ws, names, closed };
}

const closeCode = (c: RoomClient) => c.closed.then((e) => e.code);

describe("identity at the socket", () => {
  it("a direct socket to a freshly created password room, without a ticket, sees nothing", async () => {
    const owner = await signUp();
    const r = await createRoom(owner, { password: "let me in" });
    const stranger = await signUp();
    const s = await open(r.uuid, stranger.token);
    expect(s.status).toBe(101);
    expect(await s.closed).toBe(4001);
    expect(s.names).not.toContain("roomState");
  });

  it("a token signed with another key is a 401, and no socket opens", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const { privateKey } = await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    );
    const forged = await new SignJWT({ type: "user", roles: ["user", "admin"] })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setSubject(owner.uuid)
      .setIssuer("hangout/user-service")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
    expect((await open(r.uuid, forged)).status).toBe(401);
  });

  it("a password change closes the open socket and the old token no longer opens one", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const a = await signUp();
    await db(env).update(users).set({ emailVerified: true }).where(eq(users.uuid, a.uuid));
    const c = await connect(r.uuid, a);
    const changed = await user("/users/change-password", {
      token: a.token,
      body: { password: a.password, newPassword: "a brand new secret" },
    });
    expect(changed.status).toBe(201);
    expect(await closeCode(c)).toBe(4001);
    expect((await open(r.uuid, a.token)).status).toBe(401);
    // The session the change issued still gets in.
    const fresh = await connect(r.uuid, { uuid: a.uuid, token: changed.body.token });
    fresh.close();
  });

  it("a deactivated user's open socket closes, they leave the room, and they cannot reconnect", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const a = await signUp();
    const watcher = await connect(r.uuid, owner);
    const c = await connect(r.uuid, a);
    await watcher.until((s) => s.allUsers.some((u) => u.uuid === a.uuid), "a present");
    // What a deactivation route does: the D1 write, then the rooms are told.
    await db(env).update(users).set({ deactivated: true }).where(eq(users.uuid, a.uuid));
    await tellUserRooms(env, a.uuid);
    expect(await closeCode(c)).toBe(4001);
    await watcher.until((s) => !s.allUsers.some((u) => u.uuid === a.uuid), "a gone at once");
    expect((await open(r.uuid, a.token)).status).toBe(401);
    watcher.close();
  });

  it("a demoted platform moderator's open socket loses the power to remove a DJ", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const dj = await signUp();
    await seedQueue(dj.uuid, 2);
    const mod = await accountWithRoles(["user", "moderator"]);
    const djc = await connect(r.uuid, dj);
    await takeSeat(djc, dj.uuid);
    const modc = await connect(r.uuid, mod);
    // The token still claims "moderator"; D1 says otherwise from now on.
    await db(env)
      .update(users)
      .set({ roles: ["user"] })
      .where(eq(users.uuid, mod.uuid));
    await tellUserRooms(env, mod.uuid);
    expect(await modc.refused({ action: "removeDj", djUuid: dj.uuid })).toBe(
      "Only a moderator or the room's owner can remove another DJ.",
    );
    expect(djc.state!.djs.map((d) => d.uuid)).toEqual([dj.uuid]);
    // A new socket with the same token gets its powers from D1, not from the token.
    const again = await connect(r.uuid, mod);
    expect(await again.refused({ action: "skipSong" })).toBe(
      "Only the current DJ, a moderator or the room's owner can skip the song.",
    );
    for (const x of [djc, modc, again]) x.close();
  });
});

describe("rooms exist", () => {
  it("a socket to a made-up room name is a 404 and creates no object", async () => {
    const a = await signUp();
    const name = crypto.randomUUID();
    expect((await open(name, a.token)).status).toBe(404);
    const guest = await guestToken();
    expect((await open(name, guest)).status).toBe(404);
    const ids = await listDurableObjectIds(env.Room);
    expect(ids.some((id) => id.equals(env.Room.idFromName(name)))).toBe(false);
  });

  it("deleting a room closes its sockets, and a socket to it afterwards is refused", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const a = await signUp();
    const c = await connect(r.uuid, a);
    const del = await room(`/rooms/${r.id}/infrastructure`, {
      method: "DELETE",
      token: owner.token,
    });
    expect(del.status).toBe(200);
    expect(await closeCode(c)).toBe(4004);
    expect(c.messages.some((m) => m.name === "roomReset")).toBe(false);
    expect((await open(r.uuid, a.token)).status).toBe(404);
    // A socket that passed the gateway before the row went meets the tombstone.
    const res = await env.Room.getByName(r.uuid).fetch(`http://x/parties/room/${r.uuid}`, {
      headers: {
        Upgrade: "websocket",
        "x-hangout-caller": JSON.stringify({ uuid: a.uuid, type: "user", roles: ["user"] }),
      },
    });
    const ws = res.webSocket!;
    const code = new Promise<number>((done) => ws.addEventListener("close", (e) => done(e.code)));
    ws.accept();
    expect(await code).toBe(4004);
  });
});

describe("GET /rooms/room-state/{id}", () => {
  it("answers only to whoever may join: never a guest of a password room, never a banned user", async () => {
    const owner = await signUp();
    const locked = await createRoom(owner, { password: "let me in" });
    const guest = await guestToken();
    expect((await room(`/rooms/room-state/${locked.id}`, { token: guest })).status).toBe(403);
    const a = await signUp();
    expect((await room(`/rooms/room-state/${locked.id}`, { token: a.token })).status).toBe(403);
    const joined = await room(`/rooms/${locked.id}/join`, {
      token: a.token,
      body: { password: "let me in" },
    });
    const ok = await room(`/rooms/room-state/${locked.id}?ticket=${joined.body.ticket}`, {
      token: a.token,
    });
    expect(ok.status).toBe(200);
    expect((await room(`/rooms/room-state/${locked.id}`, { token: owner.token })).status).toBe(200);

    const open = await createRoom(owner);
    expect((await room(`/rooms/room-state/${open.id}`, { token: guest })).status).toBe(200);
    const banned = await room(`/roomUserRoles/${open.id}`, {
      token: owner.token,
      body: { userUuid: a.uuid, role: "banned" },
    });
    expect(banned.status).toBeLessThan(300);
    expect((await room(`/rooms/room-state/${open.id}`, { token: a.token })).status).toBe(403);
  });
});

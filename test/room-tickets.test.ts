import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signUp } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

// A password-protected room must not be enterable by opening its websocket directly:
// the socket shows the ticket that POST /rooms/{id}/join (which checks the password) issued.
type Frame = { name: string; params?: { message?: string } };

async function connect(roomUuid: string, token: string, ticket?: string) {
  const q = new URLSearchParams({ token, ...(ticket ? { ticket } : {}) });
  const res = await SELF.fetch(`http://x/parties/room/${roomUuid}?${q}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const frames: Frame[] = [];
  const closed = new Promise<number>((resolve) =>
    ws.addEventListener("close", (e) => resolve(e.code)),
  );
  const first = new Promise<Frame>((resolve) =>
    ws.addEventListener("message", (e) => {
      const f = JSON.parse(String(e.data)) as Frame;
      frames.push(f);
      resolve(f);
    }),
  );
  ws.accept();
  return { ws, first, closed, frames };
}

describe("join tickets", () => {
  it("a protected room refuses a direct socket, admits the join's ticket, and refuses someone else's ticket", async () => {
    const owner = await signUp();
    const guest = await signUp();
    const other = await signUp();
    const r = await createRoom(owner, { password: "let me in" });
    expect((await room(`/rooms/${r.id}/join`, { token: guest.token, body: {} })).status).toBe(403);
    const joined = await room(`/rooms/${r.id}/join`, {
      token: guest.token,
      body: { password: "let me in" },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.ticket).toEqual(expect.any(String));

    const direct = await connect(r.uuid, guest.token);
    expect((await direct.first).params?.message).toMatch(/password protected/);
    expect(await direct.closed).toBe(4001);

    const stolen = await connect(r.uuid, other.token, joined.body.ticket);
    expect(await stolen.closed).toBe(4001);
    expect(stolen.frames.some((f) => f.name === "roomState")).toBe(false);

    const ok = await connect(r.uuid, guest.token, joined.body.ticket);
    expect((await ok.first).name).toBe("roomState");
    ok.ws.close();
  });

  it("an open room needs no ticket", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const s = await connect(r.uuid, (await signUp()).token);
    expect((await s.first).name).toBe("roomState");
    s.ws.close();
  });
});

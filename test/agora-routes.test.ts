import { describe, expect, it } from "vitest";
import type { Env } from "../workers/env";
import { buildAccessToken2, RTC_PRIVILEGE } from "../workers/lib/agora-token";
import { MSG } from "../workers/user-service/messages";
import { MSG as ROOM_MSG } from "../workers/room-service/messages";
import { AGORA_TOKEN_TTL_SECONDS } from "../workers/user-service/agora";
import { callWith, guestToken, signUp, user, type CallInit } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

/**
 * POST /agora/token (issue 16): PUBLISHER for the room's DJs and owner while liveAudio is
 * on, SUBSCRIBER for everyone else who may enter; 503 when Agora is not configured.
 */
const AGORA: Partial<Env> = {
  AGORA_APP_ID: "970CA35de60c44645bbae8a215061b33",
  AGORA_APP_CERTIFICATE: "5CFd2fd1755d40ecb72977518be15d3b",
};
const agora = (init: CallInit, over: Partial<Env> = AGORA) =>
  callWith(over, "user-service", "/agora/token", { method: "POST", ...init });

/** Reads a "007" token back: its header fields and the RTC service's privileges and strings. */
async function decode(token: string) {
  expect(token.startsWith("007")).toBe(true);
  const packed = Uint8Array.from(atob(token.slice(3)), (ch) => ch.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const view = new DataView(bytes.buffer);
  let at = 0;
  const u16 = () => ((at += 2), view.getUint16(at - 2, true));
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const str = () => {
    const n = u16();
    at += n;
    return new TextDecoder().decode(bytes.slice(at - n, at));
  };
  str(); // signature
  const appId = str();
  const [issueTs, expire, salt] = [u32(), u32(), u32()];
  expect(u16()).toBe(1); // one service
  expect(u16()).toBe(1); // RTC
  const privileges: Record<number, number> = {};
  for (let n = u16(); n > 0; n--) privileges[u16()] = u32();
  return { appId, issueTs, expire, salt, privileges, channel: str(), account: str() };
}

const PUBLISH = [
  RTC_PRIVILEGE.joinChannel,
  RTC_PRIVILEGE.publishAudioStream,
  RTC_PRIVILEGE.publishVideoStream,
  RTC_PRIVILEGE.publishDataStream,
];

describe("POST /agora/token", () => {
  it("is 503 with a clear message when no app id or certificate is configured", async () => {
    const owner = await signUp();
    const room = await createRoom(owner, { liveAudio: true });
    const res = await agora(
      { token: owner.token, body: { roomId: room.uuid } },
      { AGORA_APP_ID: undefined, AGORA_APP_CERTIFICATE: undefined },
    );
    expect([res.status, res.body.message]).toEqual([503, MSG.agoraOff]);
  });

  it("gives the owner of a live-audio room a PUBLISHER token, signed as Agora checks it", async () => {
    const owner = await signUp();
    const room = await createRoom(owner, { liveAudio: true });
    const res = await agora({ token: owner.token, body: { roomId: room.slug } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      role: "PUBLISHER",
      channelName: room.uuid,
      uid: owner.uuid,
      appId: AGORA.AGORA_APP_ID,
      expiresIn: AGORA_TOKEN_TTL_SECONDS,
    });
    const t = await decode(res.body.token);
    expect(t).toMatchObject({ channel: room.uuid, account: owner.uuid, expire: 3600 });
    expect(Object.keys(t.privileges).map(Number)).toEqual(PUBLISH);
    expect(Math.abs(Date.parse(res.body.expiresAt) / 1000 - (t.issueTs + 3600))).toBeLessThan(2);
    // Rebuilt from its own fields with our certificate, the token is the same bytes: the
    // signature is right (a wrong certificate would sign differently).
    const again = await buildAccessToken2({
      appId: AGORA.AGORA_APP_ID!,
      appCertificate: AGORA.AGORA_APP_CERTIFICATE!,
      issueTs: t.issueTs,
      expire: t.expire,
      salt: t.salt,
      services: [{ type: 1, privileges: t.privileges, strings: [room.uuid, owner.uuid] }],
    });
    expect(again).toBe(res.body.token);
  });

  it("a listener gets SUBSCRIBER (join only) and is refused PUBLISHER", async () => {
    const [owner, listener] = [await signUp(), await signUp()];
    const room = await createRoom(owner, { liveAudio: true });
    const res = await agora({ token: listener.token, body: { roomId: room.uuid } });
    expect(res.body.role).toBe("SUBSCRIBER");
    expect(Object.keys((await decode(res.body.token)).privileges).map(Number)).toEqual([
      RTC_PRIVILEGE.joinChannel,
    ]);
    const asked = await agora({
      token: listener.token,
      body: { roomId: room.uuid, role: "PUBLISHER" },
    });
    expect([asked.status, asked.body.message]).toEqual([403, MSG.agoraNotPublisher]);
  });

  it("a holder of the room's dj role publishes; with liveAudio off even the owner only listens", async () => {
    const [owner, dj] = [await signUp(), await signUp()];
    const live = await createRoom(owner, { liveAudio: true });
    expect((await agora({ token: dj.token, body: { roomId: live.uuid } })).body.role).toBe(
      "SUBSCRIBER",
    );
    const granted = await room(`/roomUserRoles/${live.uuid}`, {
      token: owner.token,
      body: { userUuid: dj.uuid, role: "dj" },
    });
    expect(granted.status).toBeLessThan(300);
    const res = await agora({ token: dj.token, body: { roomId: live.uuid } });
    expect(res.body.role).toBe("PUBLISHER");
    // Asking for less than one may hold is fine.
    const less = await agora({ token: dj.token, body: { roomId: live.uuid, role: "SUBSCRIBER" } });
    expect(less.body.role).toBe("SUBSCRIBER");

    const quiet = await createRoom(owner, { liveAudio: false });
    const own = await agora({ token: owner.token, body: { roomId: quiet.uuid } });
    expect(own.body.role).toBe("SUBSCRIBER");
    const refused = await agora({
      token: owner.token,
      body: { roomId: quiet.uuid, role: "PUBLISHER" },
    });
    expect(refused.status).toBe(403);
  });

  it("a banned user gets no token", async () => {
    const [owner, bad] = [await signUp(), await signUp()];
    const live = await createRoom(owner, { liveAudio: true });
    await room(`/roomUserRoles/${live.uuid}`, {
      token: owner.token,
      body: { userUuid: bad.uuid, role: "banned" },
    });
    const res = await agora({ token: bad.token, body: { roomId: live.uuid } });
    expect([res.status, res.body.message]).toEqual([403, ROOM_MSG.chatBanned]);
  });

  it("guests and ghosts listen; nobody without a token", async () => {
    const owner = await signUp();
    const room = await createRoom(owner, { liveAudio: true });
    const guest = await agora({ token: await guestToken(), body: { roomId: room.uuid } });
    expect(guest.body.role).toBe("SUBSCRIBER");
    const ghostToken = (await user("/comet-chat/ghost-token")).body.authToken;
    const ghost = await agora({ token: ghostToken, body: { roomId: room.uuid } });
    expect([ghost.status, ghost.body.role]).toEqual([200, "SUBSCRIBER"]);
    expect((await agora({ body: { roomId: room.uuid } })).status).toBe(401);
  });

  it("a password room needs the join ticket; ghosts never get in", async () => {
    const [owner, listener] = [await signUp(), await signUp()];
    const room = await createRoom(owner, { liveAudio: true, password: "open-sesame-1" });
    const bare = await agora({ token: listener.token, body: { roomId: room.uuid } });
    expect([bare.status, bare.body.message]).toEqual([403, ROOM_MSG.joinPasswordRequired]);
    const ghostToken = (await user("/comet-chat/ghost-token")).body.authToken;
    const ghost = await agora({ token: ghostToken, body: { roomId: room.uuid } });
    expect([ghost.status, ghost.body.message]).toEqual([403, ROOM_MSG.ghostPublicOnly]);
    const joined = await callWith({}, "room-service", `/rooms/${room.uuid}/join`, {
      token: listener.token,
      body: { password: "open-sesame-1" },
    });
    expect(joined.status).toBe(200);
    const withTicket = await agora({
      token: listener.token,
      body: { roomId: room.uuid, ticket: joined.body.ticket },
    });
    expect([withTicket.status, withTicket.body.role]).toEqual([200, "SUBSCRIBER"]);
  });

  it("bad input is 400, an unknown room 404", async () => {
    const a = await signUp();
    for (const body of [
      {},
      { roomId: "" },
      { roomId: "x".repeat(65) },
      { roomId: "r", role: "DJ" },
      { roomId: "r", extra: 1 },
      "nope",
    ])
      expect((await agora({ token: a.token, body })).status).toBe(400);
    expect((await agora({ token: a.token, body: { roomId: crypto.randomUUID() } })).status).toBe(
      404,
    );
  });
});

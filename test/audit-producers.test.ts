import { describe, expect, it, vi } from "vitest";
import { chatter, connect, newRoom, stub } from "./room-helpers";
import { eventWhere } from "./audit-helpers";
import { call, signUp } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });

// Chat and playlist events reach the audit trail (seed 001: "Audit events include chat"): the Room object
// owes each in its outbox, and the audit queue stores it with the author and the text.

describe("chat audit events", () => {
  it("a line sent, edited, and deleted by a moderator: three events, the author as target of the delete", async () => {
    const room = newRoom();
    const alice = await chatter();
    const moderator = await chatter();
    const a = await connect(room, alice);
    const text = `hello ${crypto.randomUUID()}`;
    a.send({ action: "sendChat", message: text, clientId: "c1" });
    const line = (await a.until((s) => s.chat.some((m) => m.message === text))).chat.find(
      (m) => m.message === text,
    )!;
    const sent = await eventWhere((e) => e.data.messageId === line.id, "chat.message");
    expect(sent).toMatchObject({
      userUuid: alice.uuid,
      actorUuid: alice.uuid,
      targetUuid: null,
      data: { message: text, roomUuid: expect.any(String) },
    });

    a.send({ action: "editChat", messageId: line.id, message: `${text} (edited)` });
    const edited = await eventWhere((e) => e.data.messageId === line.id, "chat.edited");
    expect(edited.data.message).toBe(`${text} (edited)`);

    await stub(room).setRole(moderator.uuid, "moderator", null);
    const m = await connect(room, moderator);
    m.send({ action: "deleteChat", messageId: line.id });
    const deleted = await eventWhere((e) => e.data.messageId === line.id, "chat.deleted");
    expect(deleted).toMatchObject({
      userUuid: moderator.uuid,
      actorUuid: moderator.uuid,
      targetUuid: alice.uuid,
      data: { message: `${text} (edited)` },
    });
    a.close();
    m.close();
  });

  it("a refused line records nothing", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    const long = "x".repeat(1001);
    expect(await a.refused({ action: "sendChat", message: long, clientId: "c" })).toMatch(
      /Invalid/,
    );
    const ok = `after ${crypto.randomUUID()}`;
    a.send({ action: "sendChat", message: ok, clientId: "c2" });
    // The next line's event arrives; none was owed for the refused one before it.
    await eventWhere((e) => e.data.message === ok, "chat.message");
    await expect(eventWhere((e) => e.data.message === long, "chat.message")).rejects.toThrow();
    a.close();
  });
});

describe("playlist audit events", () => {
  it("creating and deleting a crate records playlist.create and playlist.delete for its owner", async () => {
    const kim = await signUp();
    const made = await call("playlist-service", "/crate", {
      token: kim.token,
      body: { crateName: "Road trip" },
    });
    expect(made.status).toBe(201);
    const crateUuid = made.body.crateUuid;
    const created = await eventWhere((e) => e.data.crateUuid === crateUuid, "playlist.create");
    expect(created).toMatchObject({ userUuid: kim.uuid, actorUuid: kim.uuid });
    const gone = await call("playlist-service", `/crate/${crateUuid}`, {
      token: kim.token,
      method: "DELETE",
    });
    expect(gone.status).toBe(200);
    const deleted = await eventWhere((e) => e.data.crateUuid === crateUuid, "playlist.delete");
    expect(deleted).toMatchObject({ userUuid: kim.uuid, data: { crateName: "Road trip" } });
  });
});

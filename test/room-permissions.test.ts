import { describe, expect, it, vi } from "vitest";
import { refusal, type Act } from "../shared/permissions";
import type { RoomRoleName } from "../shared/rooms";
import type { UserRole } from "../shared/roles";
import { accountWithRoles, signUp, type TestAccount } from "./helpers";
import { connect, stub, type RoomClient } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";

vi.setConfig({ testTimeout: 120_000 });

/**
 * The one permission table (shared/permissions.ts) walked pair by pair: for every actor
 * (each room role, each platform role) and every target (each room role), the socket and
 * REST answer the same, and both answer what the table says.
 */

const TARGETS = ["owner", "coOwner", "moderator", "dj", "plain"] as const;
type TargetKind = (typeof TARGETS)[number];
const ACTORS = [
  ...TARGETS,
  "admin",
  "superUser",
  "globalModerator",
  "platformModerator",
  "staff",
] as const;
type ActorKind = (typeof ACTORS)[number];
const PLATFORM: Partial<Record<ActorKind, UserRole>> = {
  admin: "admin",
  superUser: "superUser",
  globalModerator: "globalModerator",
  platformModerator: "moderator",
  staff: "staff",
};
const held = (kind: string): Set<RoomRoleName> =>
  new Set(
    kind === "owner" || kind === "coOwner" || kind === "moderator" || kind === "dj" ? [kind] : [],
  );

/** Sends `msg`, then a ping: answers the error sent before the pong, or null (frames keep order). */
async function socketAnswer(c: RoomClient, msg: Parameters<RoomClient["send"]>[0]) {
  const from = c.messages.length;
  const clientTime = Math.random();
  c.send(msg);
  c.send({ action: "ping", clientTime });
  await c.waitFor(
    (m) => m.name === "pong" && (m.params as { clientTime: number }).clientTime === clientTime,
    from,
  );
  const err = c.messages.slice(from).find((m) => m.name === "error");
  return err ? (err.params as { message: string }).message : null;
}

describe("one permission table, socket and REST alike", () => {
  it("every (actor, action, target) pair: kickUser on both paths, deleteChat and role grants", async () => {
    const owner = await signUp();
    const targets = new Map<TargetKind, TestAccount>([["owner", owner]]);
    for (const k of TARGETS.slice(1)) targets.set(k, await signUp());
    const actors = new Map<ActorKind, TestAccount>([["owner", owner]]);
    for (const k of ACTORS.slice(1))
      actors.set(k, await accountWithRoles(PLATFORM[k] ? ["user", PLATFORM[k]] : ["user"]));

    const mismatches: string[] = [];
    let pairs = 0;
    for (const actorKind of ACTORS) {
      // A room per actor: a kick that succeeds leaves its target kicked for 5 minutes.
      const r = await createRoom(owner);
      await stub(r.uuid).changeOwner(owner.uuid);
      for (const k of ["coOwner", "moderator", "dj"] as const)
        await stub(r.uuid).setRole(targets.get(k)!.uuid, k, null);
      const actor = actors.get(actorKind)!;
      if (actorKind === "coOwner" || actorKind === "moderator" || actorKind === "dj")
        await stub(r.uuid).setRole(actor.uuid, actorKind, null);
      const a = await connect(r.uuid, actor);
      const platformRoles = PLATFORM[actorKind] ? ["user", PLATFORM[actorKind]] : ["user"];
      const table = (act: Act, t: TargetKind) =>
        refusal({ uuid: actor.uuid, held: held(actorKind), platformRoles }, act, {
          uuid: targets.get(t)!.uuid,
          held: held(t),
        }) === null;

      for (const t of TARGETS) {
        const target = targets.get(t)!;
        const allowed = {
          deleteChat: table({ action: "deleteChat" }, t),
          chatDisabled: table({ action: "role", role: "chatDisabled" }, t),
          kickUser: table({ action: "kickUser" }, t),
        };
        // deleteChat (socket): the target's own line, deleted by the actor.
        const tc = await connect(r.uuid, target);
        const text = `line of ${t} for ${actorKind}`;
        tc.send({ action: "sendChat", message: text, clientId: text });
        const line = (await a.until((s) => s.chat.some((m) => m.message === text))).chat.find(
          (m) => m.message === text,
        )!;
        const deleted =
          (await socketAnswer(a, { action: "deleteChat", messageId: line.id })) === null;
        if (target.uuid === actor.uuid)
          expect(deleted).toBe(true); // one's own line, no rank needed
        else if (deleted !== allowed.deleteChat)
          mismatches.push(
            `${actorKind} deleteChat ${t}: socket ${deleted}, table ${allowed.deleteChat}`,
          );
        tc.close();

        // A role grant (REST only: the socket grants no roles).
        const grant = await room(`/roomUserRoles/${r.uuid}`, {
          token: actor.token,
          body: {
            userUuid: target.uuid,
            role: "chatDisabled",
            expirationTime: Date.now() + 60_000,
          },
        });
        if ((grant.status === 201) !== allowed.chatDisabled)
          mismatches.push(
            `${actorKind} chatDisabled ${t}: REST ${grant.status}, table ${allowed.chatDisabled}`,
          );
        if (grant.status !== 201) expect(grant.status).toBe(403);

        // kickUser: REST first (a refused REST kick changes nothing), then the socket.
        const rest = await room("/roomUserRoles/kick-user-from-room", {
          token: actor.token,
          body: { roomId: r.uuid, userUuid: target.uuid },
        });
        if (rest.status !== 200) expect(rest.status).toBe(403);
        const socket =
          (await socketAnswer(a, { action: "kickUser", userUuid: target.uuid })) === null;
        if ((rest.status === 200) !== socket || socket !== allowed.kickUser)
          mismatches.push(
            `${actorKind} kickUser ${t}: REST ${rest.status}, socket ${socket}, table ${allowed.kickUser}`,
          );
        pairs += 3;
      }
      a.close();
    }
    expect(mismatches).toEqual([]);
    expect(pairs).toBe(ACTORS.length * TARGETS.length * 3);
  });

  it("the table's rule: only someone strictly below; nobody kicks the owner; other platform roles carry nothing", () => {
    const who = (kind: string, platform: string[] = ["user"]) => ({
      uuid: crypto.randomUUID(),
      held: held(kind),
      platformRoles: platform,
    });
    const kick: Act = { action: "kickUser" };
    expect(refusal(who("moderator"), kick, who("moderator"))).toBe("target");
    expect(refusal(who("moderator"), kick, who("coOwner"))).toBe("target");
    expect(refusal(who("x", ["admin"]), kick, who("owner"))).toBe("owner");
    expect(refusal(who("x", ["moderator"]), { action: "skipSong" }, who("dj"))).toBe("notAllowed");
    expect(refusal(who("x", ["globalModerator"]), { action: "skipSong" }, who("owner"))).toBeNull();
    expect(refusal(who("moderator"), { action: "role", role: "moderator" }, who("dj"))).toBe(
      "roleLimit",
    );
  });
});

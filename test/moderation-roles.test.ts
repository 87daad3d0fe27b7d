import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MSG } from "../workers/user-service/messages";
import { countRows, signUp, user } from "./helpers";
import {
  actionsOn,
  adminAccount,
  auditOf,
  gmod,
  mod,
  refusesOutsiders,
  row,
  superUser,
} from "./moderation-helpers";

// Platform roles, capabilities, badges and profile edits by moderators (issue 15): who may
// call, the hierarchy (moderation-rules.ts) as the routes apply it, and the moderation action
// each change leaves.

const service = { "X-Service-Key": env.SERVICE_KEY! };
const rolesOf = async (uuid: string) => (await row(uuid))!.roles;

describe("who may call", () => {
  it("no token is 401 and a plain user 403 on every role, capability, badge and profile call", async () => {
    await refusesOutsiders("/users/add-role", (t) => ({ userUuid: t.uuid, role: "promoter" }));
    await refusesOutsiders("/users/remove-role", (t) => ({ userUuid: t.uuid, role: "promoter" }));
    await refusesOutsiders("/users/add-global-moderator-role", (t) => ({ userUuid: t.uuid }));
    await refusesOutsiders("/users/profile-admin", (t) => ({ userUuid: t.uuid, bio: "x" }));
    await refusesOutsiders("/users/change-badges-admin", (t) => ({
      userUuid: t.uuid,
      badges: ["VERIFIED"],
    }));
    await refusesOutsiders("/users/add-badges-service", (t) => ({
      userUuid: t.uuid,
      badges: ["VERIFIED"],
    }));
    await refusesOutsiders("/users/remove-badges-service", (t) => ({
      userUuid: t.uuid,
      badges: ["VERIFIED"],
    }));
  });

  it("a wrong service key is a 401 on the badge service calls", async () => {
    const t = await signUp();
    const res = await user("/users/add-badges-service", {
      headers: { "X-Service-Key": "not-the-key" },
      body: { userUuid: t.uuid, badges: ["JQBX"] },
    });
    expect(res.status).toBe(401);
    expect((await row(t.uuid))!.badges).toEqual([]);
  });
});

describe("roles", () => {
  it("a moderator grants promoter once; the role is read at once; the row names before and after", async () => {
    const m = await mod();
    const t = await signUp();
    const res = await user("/users/add-role", {
      token: m.token,
      body: { userUuid: t.uuid, role: "promoter" },
    });
    expect(res.status).toBe(201);
    expect(res.body.roles).toEqual(["user", "promoter"]);
    expect((await user("/users/profile", { token: t.token })).body.roles).toEqual([
      "user",
      "promoter",
    ]);
    const again = await user("/users/add-role", {
      token: m.token,
      body: { userUuid: t.uuid, role: "promoter" },
    });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(MSG.capabilityExists);
    const [action] = await actionsOn(t.uuid);
    expect(action).toMatchObject({
      actionType: "grantRole",
      actorUuid: m.uuid,
      previousRole: ["user"],
      role: "promoter",
    });
    expect((await auditOf(action.uuid)).topic).toBe("moderation.grantRole");
  });

  it("nobody raises themselves, and nobody grants a role at or above their own", async () => {
    const m = await mod();
    const self = await user("/users/add-global-moderator-role", {
      token: m.token,
      body: { userUuid: m.uuid },
    });
    expect(self.status).toBe(403);
    expect(self.body.message).toBe(MSG.moderateSelf);
    const t = await signUp();
    const peer = await user("/users/add-role", {
      token: m.token,
      body: { userUuid: t.uuid, role: "moderator" },
    });
    expect(peer.status).toBe(403);
    expect(peer.body.message).toBe(MSG.roleTooHigh);
    const a = await adminAccount();
    for (const role of ["admin", "superUser"]) {
      const res = await user("/users/add-role", {
        token: a.token,
        body: { userUuid: t.uuid, role },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(MSG.superOnlyRoles);
    }
    expect(await rolesOf(t.uuid)).toEqual(["user"]);
    expect(await rolesOf(m.uuid)).toEqual(["user", "moderator"]);
    expect(await actionsOn(t.uuid)).toEqual([]);
  });

  it("a superUser makes an admin, who can then open the admin panel; and takes it back", async () => {
    const su = await superUser();
    const t = await signUp();
    expect((await user("/admin/users", { token: t.token })).status).toBe(403);
    const res = await user("/users/add-role", {
      token: su.token,
      body: { userUuid: t.uuid, role: "admin" },
    });
    expect(res.status).toBe(201);
    // The same token: roles come from D1 on every call.
    expect((await user("/admin/users", { token: t.token })).status).toBe(200);
    const back = await user("/users/remove-role", {
      token: su.token,
      body: { userUuid: t.uuid, role: "admin" },
    });
    expect(back.status).toBe(201);
    expect((await user("/admin/users", { token: t.token })).status).toBe(403);
    expect((await actionsOn(t.uuid)).map((a) => [a.actionType, a.role, a.previousRole])).toEqual([
      ["grantRole", "admin", ["user"]],
      ["removeRole", "admin", ["user", "admin"]],
    ]);
  });

  it("an admin adds the global moderator role; a moderator cannot; removing one not held is a 404", async () => {
    const a = await adminAccount();
    const m = await mod();
    const t = await signUp();
    const refused = await user("/users/add-global-moderator-role", {
      token: m.token,
      body: { userUuid: t.uuid },
    });
    expect(refused.status).toBe(403);
    const ok = await user("/users/add-global-moderator-role", {
      token: a.token,
      body: { userUuid: t.uuid },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.roles).toContain("globalModerator");
    // Now a globalModerator: the moderator may no longer act on them.
    const kick = await user("/users/kick", { token: m.token, body: { userUuid: t.uuid } });
    expect(kick.status).toBe(403);
    const missing = await user("/users/remove-role", {
      token: a.token,
      body: { userUuid: t.uuid, role: "staff" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(MSG.roleNotHeld);
  });

  it("bad roles and bodies are 400s and change nothing", async () => {
    const a = await superUser();
    const t = await signUp();
    const before = await countRows("moderation_actions");
    for (const body of [
      { userUuid: t.uuid, role: "user" },
      { userUuid: t.uuid, role: "bot" },
      { userUuid: t.uuid, role: "emperor" },
      { userUuid: t.uuid },
      { userUuid: "x", role: "staff" },
      { userUuid: t.uuid, role: "staff", roles: ["admin"] },
    ]) {
      const res = await user("/users/add-role", { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await countRows("moderation_actions")).toBe(before);
    expect(await rolesOf(t.uuid)).toEqual(["user"]);
  });
});

describe("capabilities", () => {
  it("a grant and a removal are moderation actions; a moderator cannot change an admin's", async () => {
    const m = await mod();
    const t = await signUp();
    const put = await user(`/users/${t.uuid}/capabilities/uploadMusic`, {
      method: "PUT",
      token: m.token,
    });
    expect(put.status).toBe(200);
    const del = await user(`/users/${t.uuid}/capabilities/uploadMusic`, {
      method: "DELETE",
      token: m.token,
    });
    expect(del.status).toBe(200);
    expect((await actionsOn(t.uuid)).map((a) => [a.actionType, a.details])).toEqual([
      ["addCapability", { capability: "uploadMusic" }],
      ["removeCapability", { capability: "uploadMusic" }],
    ]);
    const a = await adminAccount();
    const up = await user(`/users/${a.uuid}/capabilities/uploadMusic`, {
      method: "PUT",
      token: m.token,
    });
    expect(up.status).toBe(403);
    expect(up.body.message).toBe(MSG.outranked);
    expect((await row(a.uuid))!.capabilities).toEqual([]);
  });
});

describe("badges", () => {
  it("a moderator sets a user's badges; every profile shows them; the row says from and to", async () => {
    const m = await mod();
    const t = await signUp();
    const res = await user("/users/change-badges-admin", {
      token: m.token,
      body: { userUuid: t.uuid, badges: ["VERIFIED", "STAFF", "VERIFIED"] },
    });
    expect(res.status).toBe(201);
    expect(res.body.badges).toEqual(["VERIFIED", "STAFF"]);
    expect((await user(`/profile/${t.uuid}`)).body.badges).toEqual(["VERIFIED", "STAFF"]);
    expect((await user("/users/profile", { token: t.token })).body.badges).toEqual([
      "VERIFIED",
      "STAFF",
    ]);
    const [action] = await actionsOn(t.uuid);
    expect(action).toMatchObject({
      actionType: "changeBadges",
      details: { from: [], to: ["VERIFIED", "STAFF"] },
    });
    const cleared = await user("/users/change-badges-admin", {
      token: m.token,
      body: { userUuid: t.uuid, badges: [] },
    });
    expect(cleared.body.badges).toEqual([]);
  });

  it("unknown badges and long lists are 400s; nobody badges themselves", async () => {
    const m = await mod();
    const t = await signUp();
    for (const badges of [["GOLD"], "VERIFIED", Array(6).fill("JQBX")]) {
      const res = await user("/users/change-badges-admin", {
        token: m.token,
        body: { userUuid: t.uuid, badges },
      });
      expect(res.status, JSON.stringify(badges)).toBe(400);
    }
    const self = await user("/users/change-badges-admin", {
      token: m.token,
      body: { userUuid: m.uuid, badges: ["STAFF"] },
    });
    expect(self.status).toBe(403);
    expect((await row(m.uuid))!.badges).toEqual([]);
  });

  it("services add and remove badges with the service key; two adds at once both land", async () => {
    const t = await signUp();
    const adds = await Promise.all(
      [["PLATINUM"], ["JQBX", "VERIFIED"]].map((badges) =>
        user("/users/add-badges-service", { headers: service, body: { userUuid: t.uuid, badges } }),
      ),
    );
    expect(adds.map((r) => r.status)).toEqual([201, 201]);
    expect([...(await row(t.uuid))!.badges].sort()).toEqual(["JQBX", "PLATINUM", "VERIFIED"]);
    const rm = await user("/users/remove-badges-service", {
      headers: service,
      body: { userUuid: t.uuid, badges: ["JQBX", "DOUBLE_PLATINUM"] },
    });
    expect(rm.status).toBe(201);
    expect([...rm.body.badges].sort()).toEqual(["PLATINUM", "VERIFIED"]);
    const rows = await actionsOn(t.uuid);
    expect(rows.map((r) => [r.actionType, r.actorUuid])).toEqual([
      ["changeBadges", "service"],
      ["changeBadges", "service"],
      ["changeBadges", "service"],
    ]);
    const empty = await user("/users/add-badges-service", {
      headers: service,
      body: { userUuid: t.uuid, badges: [] },
    });
    expect(empty.status).toBe(400);
  });
});

describe("profile edits by a moderator", () => {
  it("edits another's fields with the user's own bounds, and the row keeps what was there", async () => {
    const m = await gmod();
    const t = await signUp({ nickname: "rudename" });
    const res = await user("/users/profile-admin", {
      token: m.token,
      body: { userUuid: t.uuid, nickname: "listener", bio: null, twitter: null },
    });
    expect(res.status).toBe(201);
    expect((await user(`/profile/${t.uuid}`)).body.nickname).toBe("listener");
    const [action] = await actionsOn(t.uuid);
    expect(action.actionType).toBe("editProfile");
    expect(action.details).toMatchObject({
      from: { nickname: "rudename" },
      to: { nickname: "listener" },
    });
  });

  it("bad fields are 400s, an admin's profile is out of a moderator's reach, and nothing changes", async () => {
    const m = await mod();
    const t = await signUp({ nickname: "keepme" });
    for (const body of [
      { userUuid: t.uuid },
      { userUuid: t.uuid, nickname: "x" },
      { userUuid: t.uuid, bio: "b".repeat(301) },
      { userUuid: t.uuid, email: "new@example.com" },
      { userUuid: t.uuid, roles: ["admin"] },
    ]) {
      const res = await user("/users/profile-admin", { token: m.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const a = await adminAccount();
    const up = await user("/users/profile-admin", {
      token: m.token,
      body: { userUuid: a.uuid, nickname: "hacked" },
    });
    expect(up.status).toBe(403);
    expect((await row(t.uuid))!.nickname).toBe("keepme");
    expect(await actionsOn(t.uuid)).toEqual([]);
  });
});

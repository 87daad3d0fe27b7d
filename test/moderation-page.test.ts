import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signUp, user, webSessionCookie } from "./helpers";
import { adminAccount, gmod, mod, superUser, withRoles } from "./moderation-helpers";

// The moderation page's state (issue 15): GET /users/{id}/moderation answers the account as a
// moderator sees it and what this moderator may do to it, from the hierarchy the action routes
// use, so the page never offers a button the API would refuse.

describe("GET /users/{id}/moderation", () => {
  it("refuses a missing token (401) and a plain user (403), and a bad id is a 400", async () => {
    const kim = await signUp();
    const plain = await signUp();
    expect((await user(`/users/${kim.uuid}/moderation`)).status).toBe(401);
    const mine = await user(`/users/${kim.uuid}/moderation`, { token: plain.token });
    expect(mine.status).toBe(403);
    expect(JSON.stringify(mine.body)).not.toContain(kim.email);
    const m = await mod();
    const bad = await user(`/users/${"x".repeat(300)}/moderation`, { token: m.token });
    expect(bad.status).toBe(400);
    const none = await user(`/users/${crypto.randomUUID()}/moderation`, { token: m.token });
    expect(none.status).toBe(404);
  });

  it("shows a moderator the state, ban included, and no e-mail", async () => {
    const kim = await signUp();
    const m = await mod();
    await user("/users/temporary-ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "cool off", minutes: 60 },
    });
    const res = await user(`/users/${kim.uuid}/moderation`, { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      uuid: kim.uuid,
      roles: ["user"],
      capabilities: [],
      badges: [],
      deactivated: false,
      deactivationRequestedAt: null,
      ban: { reason: "cool off" },
    });
    expect(Date.parse(res.body.user.ban.until) - Date.now()).toBeGreaterThan(58 * 60_000);
    expect(res.body.user.email).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(kim.email);
  });

  it("offers a moderator only the roles the API lets them grant, and nothing on a peer or oneself", async () => {
    const kim = await signUp();
    const m = await mod();
    const mine = await user(`/users/${kim.uuid}/moderation`, { token: m.token });
    expect(mine.body).toMatchObject({ mayAct: true, refusal: null });
    expect(mine.body.grantableRoles.sort()).toEqual(["promoter", "staff"]);
    // What is offered is what the API allows: granting the offered role works, the rest is 403.
    const ok = await user("/users/add-role", {
      token: m.token,
      body: { userUuid: kim.uuid, role: "staff" },
    });
    expect(ok.status).toBe(201);
    const no = await user("/users/add-role", {
      token: m.token,
      body: { userUuid: kim.uuid, role: "moderator" },
    });
    expect(no.status).toBe(403);

    const peer = await mod();
    const onPeer = await user(`/users/${peer.uuid}/moderation`, { token: m.token });
    expect(onPeer.body).toMatchObject({ mayAct: false, refusal: "outranked", grantableRoles: [] });
    const self = await user(`/users/${m.uuid}/moderation`, { token: m.token });
    expect(self.body).toMatchObject({ mayAct: false, refusal: "self", grantableRoles: [] });
  });

  it("grows with rank: a global moderator grants moderator, an admin not admin, a superUser all", async () => {
    const kim = await signUp();
    const g = await user(`/users/${kim.uuid}/moderation`, { token: (await gmod()).token });
    expect(g.body.grantableRoles.sort()).toEqual(["moderator", "promoter", "staff"]);
    const a = await user(`/users/${kim.uuid}/moderation`, { token: (await adminAccount()).token });
    expect(a.body.grantableRoles.sort()).toEqual([
      "globalModerator",
      "moderator",
      "promoter",
      "staff",
    ]);
    const s = await user(`/users/${kim.uuid}/moderation`, { token: (await superUser()).token });
    expect(s.body.grantableRoles.sort()).toEqual([
      "admin",
      "globalModerator",
      "moderator",
      "promoter",
      "staff",
      "superUser",
    ]);
    const staff = await withRoles(["user", "staff"]);
    const onStaff = await user(`/users/${staff.uuid}/moderation`, {
      token: (await mod()).token,
    });
    expect(onStaff.body).toMatchObject({ mayAct: true });
  });
});

describe("a banned person's web session", () => {
  it("reads the ban on the next page load, and is over (401) once the ban is lifted", async () => {
    const kim = await signUp();
    const cookie = await webSessionCookie(kim.token);
    const page = () =>
      SELF.fetch("http://hangout.test/api/user-service/auth/session", {
        headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
      });
    const m = await mod();
    await user("/users/ban", { token: m.token, body: { userUuid: kim.uuid, reason: "spam" } });
    const banned = await page();
    expect(banned.status).toBe(403);
    expect(((await banned.json()) as { message: string }).message).toBe(
      "Your account is banned. Reason: spam",
    );
    // Nothing else works on it: the profile call is refused the same way.
    const other = await SELF.fetch("http://hangout.test/api/user-service/users/profile", {
      headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
    });
    expect(other.status).toBe(403);
    await user("/users/unban", { token: m.token, body: { userUuid: kim.uuid } });
    expect((await page()).status).toBe(401);
  });
});

import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLOSE_UNAUTHORIZED } from "../shared/protocol";
import { MSG } from "../workers/user-service/messages";
import { countRows, signUp, user, webSessionCookie } from "./helpers";
import {
  actionsOn,
  adminAccount,
  login,
  mod,
  refusesOutsiders,
  row,
  superUser,
  webSessionCount,
} from "./moderation-helpers";
import { connect } from "./room-helpers";
import { createRoom } from "./room-service-helpers";

// Deactivation (issue 15): a user asks, a moderator may cancel, an admin lists, deactivates
// and reactivates; and what moderators keep on a user: notes and the moderation history.

const cookieCall = (path: string, cookie: string) =>
  SELF.fetch(`http://hangout.test/api/user-service${path}`, {
    headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
  });
const listed = async (token: string, uuid: string, state = "requested") => {
  const res = await user(`/users/list-deactivate?state=${state}&take=100`, { token });
  expect(res.status).toBe(200);
  return res.body.data.some((u: { uuid: string }) => u.uuid === uuid);
};

describe("deactivation: who may call", () => {
  it("asking needs an account (401); the admin calls refuse a plain user (403) and a moderator", async () => {
    expect((await user("/users/request-deactivate", { method: "POST" })).status).toBe(401);
    await refusesOutsiders("/users/cancel-requested-deactivate", (t) => ({ userUuid: t.uuid }));
    const m = await mod();
    const t = await signUp();
    for (const [path, method] of [
      ["/users/list-deactivate", "GET"],
      [`/users/deactivate/${t.uuid}`, "DELETE"],
      [`/users/reactivate/${t.uuid}`, "POST"],
    ]) {
      expect((await user(path, { method })).status, path).toBe(401);
      expect((await user(path, { method, token: t.token })).status, path).toBe(403);
      expect((await user(path, { method, token: m.token })).status, path).toBe(403);
    }
    expect((await row(t.uuid))!.deactivated).toBe(false);
  });

  it("an admin cannot deactivate another admin or themselves; a superUser can deactivate an admin", async () => {
    const a = await adminAccount();
    const other = await adminAccount();
    const res = await user(`/users/deactivate/${other.uuid}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MSG.outranked);
    const self = await user(`/users/deactivate/${a.uuid}`, { method: "DELETE", token: a.token });
    expect(self.body.message).toBe(MSG.moderateSelf);
    const su = await superUser();
    const ok = await user(`/users/deactivate/${other.uuid}`, { method: "DELETE", token: su.token });
    expect(ok.status).toBe(200);
  });

  it("bad ids are 400s", async () => {
    const a = await adminAccount();
    expect(
      (await user("/users/deactivate/nobody", { method: "DELETE", token: a.token })).status,
    ).toBe(400);
    expect((await user("/users/list-deactivate?take=1000", { token: a.token })).status).toBe(400);
    expect((await user("/users/list-deactivate?state=all", { token: a.token })).status).toBe(400);
    const gone = await user(`/users/reactivate/${crypto.randomUUID()}`, {
      method: "POST",
      token: a.token,
    });
    expect(gone.status).toBe(404);
  });
});

describe("the round trip", () => {
  it("request, list, deactivate (sockets closed, sign-in refused, profile gone), reactivate (all back)", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const kim = await signUp({ nickname: "kimberly" });
    const cookie = await webSessionCookie(kim.token);
    const a = await adminAccount();

    const asked = await user("/users/request-deactivate", { method: "POST", token: kim.token });
    expect(asked.status).toBe(201);
    expect(asked.body.message).toBe(MSG.deactivationRequested);
    const at = asked.body.user.deactivationRequestedAt;
    expect(at).toBeTruthy();
    // Asking twice keeps the first time and writes no second row.
    const twice = await user("/users/request-deactivate", { method: "POST", token: kim.token });
    expect(twice.body.user.deactivationRequestedAt).toBe(at);
    expect(await listed(a.token, kim.uuid)).toBe(true);

    const socket = await connect(r.uuid, kim);
    const off = await user(`/users/deactivate/${kim.uuid}`, { method: "DELETE", token: a.token });
    expect(off.status).toBe(200);
    expect(off.body.deactivated).toBe(true);
    expect((await socket.closed).code).toBe(CLOSE_UNAUTHORIZED);
    expect((await user("/users/profile", { token: kim.token })).status).toBe(401);
    expect((await login(kim)).status).toBe(401);
    expect(await webSessionCount(kim.uuid)).toBe(0);
    expect((await cookieCall("/users/profile", cookie)).status).toBe(401);
    expect((await user(`/profile/${kim.uuid}`)).status).toBe(404);
    expect(await listed(a.token, kim.uuid)).toBe(false);
    expect(await listed(a.token, kim.uuid, "deactivated")).toBe(true);
    // The admin still sees the account.
    expect((await user(`/admin/users/${kim.uuid}`, { token: a.token })).body.deactivated).toBe(
      true,
    );
    const again = await user(`/users/deactivate/${kim.uuid}`, { method: "DELETE", token: a.token });
    expect(again.status).toBe(409);

    const on = await user(`/users/reactivate/${kim.uuid}`, { method: "POST", token: a.token });
    expect(on.status).toBe(201);
    expect(on.body.deactivated).toBe(false);
    expect(on.body.deactivationRequestedAt).toBeNull();
    const back = await login(kim);
    expect(back.status).toBe(200);
    expect((await user(`/profile/${kim.uuid}`)).body.nickname).toBe("kimberly");
    const fresh = await connect(r.uuid, { uuid: kim.uuid, token: back.body.token });
    fresh.close();
    const twiceOn = await user(`/users/reactivate/${kim.uuid}`, { method: "POST", token: a.token });
    expect(twiceOn.status).toBe(409);
    expect(twiceOn.body.message).toBe(MSG.notDeactivated);

    expect((await actionsOn(kim.uuid)).map((x) => [x.actionType, x.actorUuid])).toEqual([
      ["requestDeactivation", kim.uuid],
      ["deactivate", a.uuid],
      ["reactivate", a.uuid],
    ]);
  });

  it("the user or a moderator cancels a request; a moderator cannot cancel an admin's; none pending is a 404", async () => {
    const kim = await signUp();
    const m = await mod();
    await user("/users/request-deactivate", { method: "POST", token: kim.token });
    const mine = await user("/users/cancel-requested-deactivate", {
      token: kim.token,
      body: { userUuid: kim.uuid },
    });
    expect(mine.status).toBe(201);
    expect(mine.body.user.deactivationRequestedAt).toBeNull();
    await user("/users/request-deactivate", { method: "POST", token: kim.token });
    const theirs = await user("/users/cancel-requested-deactivate", {
      token: m.token,
      body: { userUuid: kim.uuid },
    });
    expect(theirs.status).toBe(201);
    const none = await user("/users/cancel-requested-deactivate", {
      token: m.token,
      body: { userUuid: kim.uuid },
    });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe(MSG.deactivationNotRequested);
    const a = await adminAccount();
    await user("/users/request-deactivate", { method: "POST", token: a.token });
    const refused = await user("/users/cancel-requested-deactivate", {
      token: m.token,
      body: { userUuid: a.uuid },
    });
    expect(refused.status).toBe(403);
    expect((await row(a.uuid))!.deactivationRequestedAt).not.toBeNull();
    // Someone else's request is not a plain user's to cancel.
    const stranger = await signUp();
    const plain = await user("/users/cancel-requested-deactivate", {
      token: stranger.token,
      body: { userUuid: a.uuid },
    });
    expect(plain.status).toBe(403);
  });
});

describe("moderation comments and history", () => {
  it("moderators leave and read notes, newest first, a page at a time; the person and plain users cannot", async () => {
    const kim = await signUp();
    const [m1, m2] = [await mod(), await mod()];
    for (const [m, comment] of [
      [m1, "warned about spam"],
      [m2, "second warning"],
      [m1, "third"],
    ] as const) {
      const res = await user("/moderation-comments", {
        token: m.token,
        body: { userUuid: kim.uuid, comment },
      });
      expect(res.status).toBe(201);
    }
    const first = await user(`/moderation-comments/${kim.uuid}?limit=2`, { token: m2.token });
    expect(first.status).toBe(200);
    expect(first.body.data.map((x: { comment: string }) => x.comment)).toEqual([
      "third",
      "second warning",
    ]);
    expect(first.body.data[0].authorUuid).toBe(m1.uuid);
    const rest = await user(
      `/moderation-comments/${kim.uuid}?limit=2&before=${first.body.nextBefore}`,
      { token: m2.token },
    );
    expect(rest.body.data.map((x: { comment: string }) => x.comment)).toEqual([
      "warned about spam",
    ]);
    expect(rest.body.nextBefore).toBeNull();
    for (const who of [kim, await signUp()]) {
      expect((await user(`/moderation-comments/${kim.uuid}`, { token: who.token })).status).toBe(
        403,
      );
      expect(
        (
          await user("/moderation-comments", {
            token: who.token,
            body: { userUuid: kim.uuid, comment: "hi" },
          })
        ).status,
      ).toBe(403);
    }
    expect((await user(`/moderation-comments/${kim.uuid}`)).status).toBe(401);
  });

  it("stops a moderator's flood of notes at 60 an hour (429) and stores no more", async () => {
    const m = await mod();
    const kim = await signUp();
    const note = () =>
      user("/moderation-comments", {
        token: m.token,
        body: { userUuid: kim.uuid, comment: "spam" },
      });
    const results = await Promise.all(Array.from({ length: 62 }, note));
    expect(results.filter((r) => r.status === 201)).toHaveLength(60);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(2);
    expect(refused[0].body.message).toMatch(/^Too many moderator notes in a short time/);
    // Another moderator still writes.
    const other = await mod();
    expect(
      (
        await user("/moderation-comments", {
          token: other.token,
          body: { userUuid: kim.uuid, comment: "seen" },
        })
      ).status,
    ).toBe(201);
  });

  it("bad notes are 400s and store nothing", async () => {
    const m = await mod();
    const kim = await signUp();
    const before = await countRows("moderation_comments");
    for (const body of [
      { userUuid: kim.uuid },
      { userUuid: kim.uuid, comment: "   " },
      { userUuid: kim.uuid, comment: "x".repeat(2001) },
      { userUuid: "kim", comment: "note" },
    ]) {
      const res = await user("/moderation-comments", { token: m.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await user(`/moderation-comments/${kim.uuid}?limit=101`, { token: m.token })).status,
    ).toBe(400);
    expect(await countRows("moderation_comments")).toBe(before);
  });

  it("the history lists every action on the user, newest first, for moderators only", async () => {
    const kim = await signUp();
    const m = await mod();
    await user("/users/kick", { token: m.token, body: { userUuid: kim.uuid, reason: "one" } });
    await user("/users/temporary-ban", {
      token: m.token,
      body: { userUuid: kim.uuid, reason: "two", minutes: 5 },
    });
    await user("/users/unban", { token: m.token, body: { userUuid: kim.uuid } });
    const res = await user(`/users/${kim.uuid}/moderation-history`, { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { actionType: string }) => x.actionType)).toEqual([
      "globalUnBan",
      "temporaryBan",
      "globalKick",
    ]);
    expect(res.body.data[1]).toMatchObject({ actorUuid: m.uuid, reason: "two" });
    expect(typeof res.body.data[1].until).toBe("string");
    const other = await signUp();
    expect(
      (await user(`/users/${kim.uuid}/moderation-history`, { token: other.token })).status,
    ).toBe(403);
    expect((await user(`/users/${kim.uuid}/moderation-history`)).status).toBe(401);
  });
});

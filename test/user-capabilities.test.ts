import { describe, expect, it } from "vitest";
import { MSG } from "../workers/user-service/messages";
import { accountWithRoles, signUp, user } from "./helpers";

describe("PUT/DELETE /users/{userId}/capabilities/{capability}", () => {
  it("a moderator grants a capability once; the user sees it; granting again is the catalogue's 403", async () => {
    const mod = await accountWithRoles(["user", "moderator"]);
    const dj = await signUp();
    const put = await user(`/users/${dj.uuid}/capabilities/uploadMusic`, {
      method: "PUT",
      token: mod.token,
    });
    expect(put.status).toBe(200);
    expect((await user("/users/capabilities", { token: dj.token })).body).toEqual({
      capabilities: ["uploadMusic"],
    });
    const again = await user(`/users/${dj.id}/capabilities/uploadMusic`, {
      method: "PUT",
      token: mod.token,
    });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(MSG.capabilityExists);
    const del = await user(`/users/${dj.uuid}/capabilities/uploadMusic`, {
      method: "DELETE",
      token: mod.token,
    });
    expect(del.body.capabilities).toEqual([]);
    expect(
      (
        await user(`/users/${dj.uuid}/capabilities/uploadMusic`, {
          method: "DELETE",
          token: mod.token,
        })
      ).status,
    ).toBe(404);
  });

  it("refuses an unknown capability (400), an unknown user (404), a plain user (403) and no token (401)", async () => {
    const mod = await accountWithRoles(["user", "moderator"]);
    const dj = await signUp();
    expect(
      (
        await user(`/users/${dj.uuid}/capabilities/flyToTheMoon`, {
          method: "PUT",
          token: mod.token,
        })
      ).status,
    ).toBe(400);
    const missing = await user(`/users/${crypto.randomUUID()}/capabilities/promoteRoom`, {
      method: "PUT",
      token: mod.token,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(MSG.profileNotFound);
    expect(
      (await user(`/users/${dj.uuid}/capabilities/promoteRoom`, { method: "PUT", token: dj.token }))
        .status,
    ).toBe(403);
    expect(
      (await user(`/users/${dj.uuid}/capabilities/promoteRoom`, { method: "PUT" })).status,
    ).toBe(401);
    expect((await user("/users/capabilities", { token: dj.token })).body.capabilities).toEqual([]);
  });

  it("nobody changes their own capabilities: a moderator granting themselves one is 403", async () => {
    const mod = await accountWithRoles(["user", "moderator"]);
    for (const method of ["PUT", "DELETE"]) {
      const res = await user(`/users/${mod.uuid}/capabilities/uploadMusic`, {
        method,
        token: mod.token,
      });
      expect(res.status, method).toBe(403);
      expect(res.body.message).toBe(MSG.ownCapabilities);
    }
    expect((await user("/users/capabilities", { token: mod.token })).body.capabilities).toEqual([]);
  });

  it("grants and removes atomically: racing changes of different capabilities all land", async () => {
    const mod = await accountWithRoles(["user", "moderator"]);
    for (let round = 0; round < 5; round++) {
      const dj = await signUp();
      const put = await Promise.all(
        ["uploadMusic", "promoteRoom"].map((cap) =>
          user(`/users/${dj.uuid}/capabilities/${cap}`, { method: "PUT", token: mod.token }),
        ),
      );
      expect(put.map((r) => r.status)).toEqual([200, 200]);
      expect(
        [...(await user("/users/capabilities", { token: dj.token })).body.capabilities].sort(),
      ).toEqual(["promoteRoom", "uploadMusic"]);
      const del = await Promise.all(
        ["uploadMusic", "promoteRoom"].map((cap) =>
          user(`/users/${dj.uuid}/capabilities/${cap}`, { method: "DELETE", token: mod.token }),
        ),
      );
      expect(del.map((r) => r.status)).toEqual([200, 200]);
      expect((await user("/users/capabilities", { token: dj.token })).body.capabilities).toEqual(
        [],
      );
    }
  });

  it("of racing grants of the same capability one succeeds, the others get the catalogue's 403; the list holds it once", async () => {
    const mod = await accountWithRoles(["user", "moderator"]);
    const dj = await signUp();
    const res = await Promise.all(
      [1, 2, 3, 4].map(() =>
        user(`/users/${dj.uuid}/capabilities/uploadMusic`, { method: "PUT", token: mod.token }),
      ),
    );
    expect(res.map((r) => r.status).sort()).toEqual([200, 403, 403, 403]);
    expect(
      res.filter((r) => r.status === 403).every((r) => r.body.message === MSG.capabilityExists),
    ).toBe(true);
    expect((await user("/users/capabilities", { token: dj.token })).body.capabilities).toEqual([
      "uploadMusic",
    ]);
  });
});

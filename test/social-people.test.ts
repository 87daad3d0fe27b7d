import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { guestToken, signUp } from "./helpers";
import { block, handle, invite, social } from "./social-helpers";

/** A nickname stem no other test uses, so a prefix search sees only this test's people. */
const stem = () => `Pq${Math.random().toString(36).slice(2, 8)}`;
const nicks = (body: { data: { nickname: string }[] }) => body.data.map((p) => p.nickname);

describe("GET /people (find people by nickname)", () => {
  it("finds by prefix regardless of case, leaves out the caller, pages with a total", async () => {
    const s = stem();
    const me = await signUp({ nickname: `${s}Me` });
    await signUp({ nickname: `${s}Alpha` });
    await signUp({ nickname: `${s.toLowerCase()}beta` });
    await signUp({ nickname: `${s}Gamma` });
    await signUp({ nickname: `Zz${s}` }); // contains the stem but does not start with it
    const res = await social(`/people?q=${s.toUpperCase()}`, { token: me.token });
    expect(res.status).toBe(200);
    expect(nicks(res.body)).toEqual([`${s}Alpha`, `${s.toLowerCase()}beta`, `${s}Gamma`]);
    expect(res.body).toMatchObject({ total: 3, skip: 0, take: 12 });
    // The public profile, never private fields.
    expect(res.body.data[0]).toHaveProperty("uuid");
    expect(res.body.data[0]).not.toHaveProperty("email");
    const page2 = await social(`/people?q=${s}&take=2&skip=2`, { token: me.token });
    expect(nicks(page2.body)).toEqual([`${s}Gamma`]);
    expect(page2.body.total).toBe(3);
  });

  it("hides a blocked user both ways, and deactivated accounts", async () => {
    const s = stem();
    const [a, b, c] = [
      await signUp({ nickname: `${s}Ann` }),
      await signUp({ nickname: `${s}Bob` }),
      await signUp({ nickname: `${s}Cat` }),
    ];
    expect(nicks((await social(`/people?q=${s}`, { token: a.token })).body)).toEqual([
      `${s}Bob`,
      `${s}Cat`,
    ]);
    await block(a, b);
    // The blocker no longer finds them, and the blocked one no longer finds the blocker.
    expect(nicks((await social(`/people?q=${s}`, { token: a.token })).body)).toEqual([`${s}Cat`]);
    expect(nicks((await social(`/people?q=${s}`, { token: b.token })).body)).toEqual([`${s}Cat`]);
    // A third person still sees both.
    const res = await social(`/people?q=${s}`, { token: c.token });
    expect(nicks(res.body)).toEqual([`${s}Ann`, `${s}Bob`]);
    await env.DB.prepare("update users set deactivated = 1 where uuid = ?").bind(b.uuid).run();
    expect(nicks((await social(`/people?q=${s}`, { token: c.token })).body)).toEqual([`${s}Ann`]);
  });

  it("401 without a token, 403 for a guest; bad q, take and skip are 400s", async () => {
    expect((await social("/people?q=ab")).status).toBe(401);
    expect((await social("/people?q=ab", { token: await guestToken() })).status).toBe(403);
    const me = await signUp();
    for (const qs of [
      "",
      "q=",
      "q=a",
      "q=%20a%20",
      `q=${"x".repeat(31)}`,
      "q=ab&take=21",
      "q=ab&take=0",
      "q=ab&skip=-1",
      "q=ab&skip=1001",
    ]) {
      const res = await social(`/people?${qs}`, { token: me.token });
      expect(res.status, qs).toBe(400);
      expect(typeof res.body.message, qs).toBe("string");
    }
  });

  it("treats SQL-looking and wildcard queries as plain text", async () => {
    const s = stem();
    const me = await signUp({ nickname: `${s}Me` });
    await signUp({ nickname: `${s}Other` });
    for (const q of ["%%", "__", "' or 1=1 --"]) {
      const res = await social(`/people?q=${encodeURIComponent(q)}`, { token: me.token });
      expect(res.status).toBe(200);
      expect(nicks(res.body)).not.toContain(`${s}Other`);
    }
  });
});

describe("GET /web-notifications/vapid-public-key", () => {
  it("answers the configured public key, the one browsers subscribe with", async () => {
    const res = await social("/web-notifications/vapid-public-key");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ publicKey: env.VAPID_PUBLIC_KEY });
  });
});

describe("GET /friend-invitations/between/{id}", () => {
  it("answers the pending invitation either way, then null once answered; 401 without a token", async () => {
    const [a, b, c] = [await signUp(), await signUp(), await signUp()];
    const none = await social(`/friend-invitations/between/${b.uuid}`, { token: a.token });
    expect(none).toMatchObject({ status: 200, body: { invitation: null } });
    const sent = await invite(a, b);
    for (const [who, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const res = await social(`/friend-invitations/between/${other.uuid}`, { token: who.token });
      expect(res.body.invitation).toMatchObject({
        uuid: sent.body.uuid,
        fromUuid: a.uuid,
        toUuid: b.uuid,
        status: "pending",
      });
    }
    // A third person learns nothing about a and b's pair.
    const third = await social(`/friend-invitations/between/${b.uuid}`, { token: c.token });
    expect(third.body.invitation).toBeNull();
    await handle(b, sent.body.uuid, "accepted");
    const after = await social(`/friend-invitations/between/${b.uuid}`, { token: a.token });
    expect(after.body.invitation).toBeNull();
    expect((await social(`/friend-invitations/between/${b.uuid}`)).status).toBe(401);
    expect((await social(`/friend-invitations/between/x`, { token: a.token })).status).toBe(400);
  });
});

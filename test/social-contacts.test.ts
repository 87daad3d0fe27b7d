import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { userContactHashes, userEmails } from "../workers/db/schema";
import { MAX_PER_CALL, MAX_PER_USER } from "../workers/social-service/contact-book";
import { SOCIAL_MSG } from "../workers/social-service/messages";
import {
  admin,
  derivedKey,
  hmacWith,
  signUp,
  uniqueEmail,
  user,
  type TestAccount,
} from "./helpers";
import { befriend, block, expectGuarded, social, verified } from "./social-helpers";

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
/** The documented hash, computed here from the documented key derivation. */
const expectedHash = async (kind: string, value: string) =>
  hex(await hmacWith(await derivedKey("hangout/contact-book/v1"), `${kind}:${value}`));
const stored = (uuid: string) =>
  db(env).select().from(userContactHashes).where(eq(userContactHashes.userUuid, uuid)).all();
const post = (a: TestAccount, contacts: unknown) =>
  social("/user-book-contact", { token: a.token, body: { contacts } });
const matching = (a: TestAccount, q = "") =>
  social(`/user-book-contact/matching-contacts${q}`, { token: a.token });
const matchingNotFriends = (a: TestAccount) =>
  social("/user-book-contact/matching-contacts-friends", { method: "POST", token: a.token });
const uuids = (body: { data: { uuid: string }[] }) => body.data.map((p) => p.uuid);

describe("POST /user-book-contact", () => {
  it("stores only keyed hashes of the normalised values, never the raw book", async () => {
    const a = await signUp();
    const res = await post(a, [
      { email: "  Someone@Example.COM " },
      { phone: "+1 (415) 555-0100" },
      { phone: "0014155550100" },
      { phone: "555-0100" },
      { email: "not an email" },
    ]);
    expect(res).toMatchObject({
      status: 201,
      body: { received: 5, skipped: 2, added: 2, total: 2 },
    });
    const rows = await stored(a.uuid);
    expect(rows.map((r) => r.hash).sort()).toEqual(
      [
        await expectedHash("email", "someone@example.com"),
        await expectedHash("phone", "+14155550100"),
      ].sort(),
    );
    expect(JSON.stringify(rows)).not.toMatch(/someone|4155550100/i);
    const again = await post(a, [{ email: "someone@example.com" }]);
    expect(again.body).toMatchObject({ added: 0, total: 2 });
    const one = await social("/user-book-contact/single", {
      token: a.token,
      body: { phone: "+44 20 7946 0000" },
    });
    expect(one).toMatchObject({ status: 201, body: { added: 1, total: 3 } });
  });

  it("is 400 for bad contacts or a list over the limit, and stores nothing", async () => {
    const a = await signUp();
    const many = Array.from({ length: MAX_PER_CALL + 1 }, (_, i) => ({
      email: `x${i}@example.com`,
    }));
    for (const contacts of [
      [],
      many,
      [{ phone: "+14155550100", email: "a@example.com" }],
      [{}],
      [{ phone: 14155550100 }],
      [{ email: "a".repeat(300) }],
      "a@example.com",
    ]) {
      const res = await post(a, contacts);
      expect(res.status).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
    expect(
      (await social("/user-book-contact/single", { token: a.token, body: {} })).body.message,
    ).toBe(SOCIAL_MSG.contactOneOf);
    expect(await stored(a.uuid)).toHaveLength(0);
  });

  it("holds at most MAX_PER_USER entries: a call that would pass it stores none of its contacts", async () => {
    const a = await signUp();
    const filler = Array.from({ length: MAX_PER_USER - 1 }, (_, i) =>
      env.DB.prepare(
        "insert into user_contact_hashes (user_uuid, kind, hash) values (?, 'email', ?)",
      ).bind(a.uuid, `filler-${i}`),
    );
    await env.DB.batch(filler);
    const over = await post(a, [{ email: "one@example.com" }, { email: "two@example.com" }]);
    expect(over).toMatchObject({
      status: 409,
      body: { message: SOCIAL_MSG.contactBookFull(MAX_PER_USER) },
    });
    expect(await stored(a.uuid)).toHaveLength(MAX_PER_USER - 1);
    expect((await post(a, [{ email: "one@example.com" }])).body).toMatchObject({
      added: 1,
      total: MAX_PER_USER,
    });
    // Already stored contacts do not count twice.
    expect((await post(a, [{ email: "one@example.com" }])).status).toBe(201);
  });
});

describe("GET, DELETE and the admin view", () => {
  it("says what is stored (counts, times, hashes only); DELETE empties the book", async () => {
    const a = await signUp();
    await post(a, [{ email: "x@example.com" }, { phone: "+34 600 000 000" }]);
    const got = await social("/user-book-contact", { token: a.token });
    expect(got.body).toMatchObject({
      total: 2,
      phones: 1,
      emails: 1,
      firstAddedAt: expect.any(String),
    });
    expect(got.body.stored).toMatch(/hash/);
    const adm = await social(`/user-book-contact/admin/${a.uuid}`, {
      token: (await admin()).token,
    });
    expect(adm.body).toMatchObject({ uuid: a.uuid, total: 2, lastAddedAt: expect.any(String) });
    expect(await social("/user-book-contact", { method: "DELETE", token: a.token })).toMatchObject({
      status: 200,
      body: { deleted: 2, total: 0 },
    });
    expect((await social("/user-book-contact", { token: a.token })).body).toMatchObject({
      total: 0,
      firstAddedAt: null,
    });
    expect(
      await expectGuarded("GET", `/user-book-contact/admin/${a.uuid}`, undefined, { admin: true }),
    ).toEqual([401, 403, 403]);
  });

  it("needs an account on every route", async () => {
    for (const [m, p, body] of [
      ["POST", "/user-book-contact", { contacts: [{ email: "a@example.com" }] }],
      ["POST", "/user-book-contact/single", { email: "a@example.com" }],
      ["GET", "/user-book-contact", undefined],
      ["DELETE", "/user-book-contact", undefined],
      ["GET", "/user-book-contact/matching-contacts", undefined],
      ["POST", "/user-book-contact/matching-contacts-friends", undefined],
    ] as const)
      expect(await expectGuarded(m, p, body)).toEqual([401, 403]);
  });
});

describe("matching contacts", () => {
  it("finds users whose VERIFIED e-mail is in my book, as public profiles only", async () => {
    const [me, known] = await Promise.all([signUp(), verified()]);
    const unverified = await signUp();
    await post(me, [
      { email: known.email.toUpperCase() },
      { email: unverified.email },
      { email: me.email },
    ]);
    const res = await matching(me);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, data: [{ uuid: known.uuid }] });
    expect(JSON.stringify(res.body)).not.toContain(known.email);
    expect((await matching(me, "?take=1000000000")).status).toBe(400);
  });

  it("matches an account an admin made (its e-mail needs no code), not one still pending", async () => {
    const me = await signUp();
    const boss = await admin();
    const email = uniqueEmail("made");
    const made = await user("/users/admin/sign-up", {
      token: boss.token,
      body: { email, password: "a long enough password", nickname: "Made Here" },
    });
    expect(made.status).toBe(201);
    await post(me, [{ email }]);
    expect((await matching(me)).body.data.map((p: { uuid: string }) => p.uuid)).toEqual([
      made.body.uuid,
    ]);
  });

  it("matches a verified secondary e-mail added through /users/emails, hashed when it was added", async () => {
    const [me, other] = await Promise.all([signUp(), signUp()]);
    const second = uniqueEmail("second");
    const added = await user("/users/emails", { token: other.token, body: { email: second } });
    const row = await db(env)
      .select()
      .from(userEmails)
      .where(eq(userEmails.id, added.body.id))
      .get();
    expect(row?.contactHash).toBe(await expectedHash("email", second));
    await post(me, [{ email: second }]);
    expect((await matching(me)).body.total).toBe(0);
    await db(env)
      .update(userEmails)
      .set({ status: "VERIFIED" })
      .where(eq(userEmails.id, added.body.id));
    expect(uuids((await matching(me)).body)).toEqual([other.uuid]);
  });

  it("fills the hash of older verified rows before matching", async () => {
    const [me, old] = await Promise.all([signUp(), verified()]);
    await db(env)
      .update(userEmails)
      .set({ contactHash: null })
      .where(eq(userEmails.email, old.email));
    await post(me, [{ email: old.email }]);
    expect(uuids((await matching(me)).body)).toEqual([old.uuid]);
    const row = await db(env)
      .select()
      .from(userEmails)
      .where(eq(userEmails.email, old.email))
      .get();
    expect(row?.contactHash).toBe(await expectedHash("email", old.email));
  });

  it("matching-contacts-friends leaves out friends; both leave out blocks either way", async () => {
    const me = await signUp();
    const [friend, stranger, blocked, blocker] = await Promise.all([
      verified(),
      verified(),
      verified(),
      verified(),
    ]);
    await post(
      me,
      [friend, stranger, blocked, blocker].map((a) => ({ email: a.email })),
    );
    await befriend(me, friend);
    await block(me, blocked);
    await block(blocker, me);
    expect(uuids((await matching(me)).body).sort()).toEqual([friend.uuid, stranger.uuid].sort());
    const res = await matchingNotFriends(me);
    expect(res).toMatchObject({ status: 200, body: { total: 1, data: [{ uuid: stranger.uuid }] } });
  });
});

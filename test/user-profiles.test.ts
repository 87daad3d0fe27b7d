import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { avatars, users } from "../workers/db/schema";
import { MSG } from "../workers/user-service/messages";
import {
  accountWithRoles,
  admin,
  forgedToken,
  guestToken,
  signUp,
  uniqueIp,
  user,
  type TestAccount,
} from "./helpers";

const SERVICE = { "X-Service-Key": "test-service-key" };
/** A token like a real one, signed with another key (helpers.ts forgedToken). */
let FORGED = "";
beforeAll(async () => void (FORGED = await forgedToken(await signUp())));

const ownProfile = async (a: TestAccount) =>
  (await user("/users/profile", { token: a.token })).body;
const setRow = (uuid: string, values: Partial<typeof users.$inferInsert>) =>
  db(env).update(users).set(values).where(eq(users.uuid, uuid));

describe("GET /users/profile", () => {
  it("answers the caller's own profile, e-mail and roles included", async () => {
    const a = await signUp({ nickname: "Own Profile" });
    const res = await user("/users/profile", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      uuid: a.uuid,
      id: a.id,
      email: a.email,
      nickname: "Own Profile",
      roles: ["user"],
      capabilities: [],
    });
    expect(res.body).not.toHaveProperty("passwordHash");
  });

  it("is 401 without a token or with a forged one, and 403 for a guest", async () => {
    expect((await user("/users/profile")).status).toBe(401);
    expect((await user("/users/profile", { token: FORGED })).status).toBe(401);
    expect((await user("/users/profile", { token: await guestToken() })).status).toBe(403);
  });
});

describe("POST /users/profile", () => {
  it("updates every field, normalises colour and zodiac, and bumps updatedAt", async () => {
    const a = await signUp();
    const before = await ownProfile(a);
    const body = {
      nickname: "  DJ Nova  ",
      firstName: "Nova",
      lastName: "Star",
      color: "#a1b2c3",
      avatarId: "space-cat",
      pronoun: "she/her",
      displayPronouns: true,
      zodiac: "Leo",
      bio: "Plays synthwave at dawn.",
      songOfTheWeek: "Nightcall",
      priceForGig: 250,
    };
    // A user may wear only an avatar they may use (issue 6): a PUBLIC one.
    await db(env)
      .insert(avatars)
      .values({ slug: "space-cat", name: "Space Cat" })
      .onConflictDoNothing();
    const res = await user("/users/profile", { token: a.token, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...body,
      nickname: "DJ Nova",
      color: "A1B2C3",
      zodiac: "leo",
      email: a.email,
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect(await ownProfile(a)).toEqual(res.body);
  });

  it("clears optional fields with null or an empty string", async () => {
    const a = await signUp();
    await user("/users/profile", {
      token: a.token,
      body: { firstName: "Temp", bio: "x", priceForGig: 5, zodiac: "pisces" },
    });
    const res = await user("/users/profile", {
      token: a.token,
      body: { firstName: null, bio: "", priceForGig: null, zodiac: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ firstName: null, bio: null, priceForGig: null, zodiac: null });
  });

  it("refuses bad input with a message and changes nothing", async () => {
    const a = await signUp();
    const before = await ownProfile(a);
    const cases: [unknown, string][] = [
      [{}, "Provide at least one profile field to update."],
      [{ nickname: "x" }, "nickname must be at least 2 characters"],
      [{ nickname: "n".repeat(31) }, "nickname must be at most 30 characters"],
      [{ firstName: "f".repeat(51) }, "firstName must be at most 50 characters"],
      [{ lastName: 7 }, "lastName must be a string or null"],
      [{ color: "purple" }, "color must be a 6-digit hex colour"],
      [{ pronoun: "p".repeat(31) }, "pronoun must be at most 30 characters"],
      [{ displayPronouns: "yes" }, "displayPronouns must be a boolean"],
      [
        { zodiac: "ophiuchus" },
        "zodiac must be one of aries, taurus, gemini, cancer, leo, virgo, libra, scorpio, sagittarius, capricorn, aquarius, pisces",
      ],
      [{ bio: "b".repeat(301) }, "bio must be at most 300 characters"],
      [{ songOfTheWeek: "s".repeat(201) }, "songOfTheWeek must be at most 200 characters"],
      [{ priceForGig: -1 }, "priceForGig must not be negative"],
      [{ priceForGig: 1.5 }, "priceForGig must be a whole number"],
      [{ nickname: "Fine", email: "x@y.z" }, 'Unrecognized key: "email"'],
      [{ nickname: "Fine", roles: ["admin"] }, 'Unrecognized key: "roles"'],
    ];
    for (const [body, message] of cases) {
      const res = await user("/users/profile", { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
      expect([res.body.message].flat().join(" | "), JSON.stringify(body)).toContain(message);
    }
    const malformed = await user("/users/profile", {
      token: a.token,
      body: "{nope",
      headers: { "Content-Type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(await ownProfile(a)).toEqual(before);
  });

  it("refuses control characters and broken unicode (lone surrogates came back as U+FFFD), keeps emoji and line breaks in a bio", async () => {
    const a = await signUp();
    const before = await ownProfile(a);
    for (const body of [
      { nickname: "\ud800\ud800" },
      { nickname: "dj\u0000sam" },
      { nickname: "dj\nsam" },
      { firstName: "Sam\udc00" },
      { bio: "hi\u0007" },
    ]) {
      const res = await user("/users/profile", { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect([res.body.message].flat().join(" | ")).toMatch(
        /must not contain control characters or broken unicode/,
      );
    }
    expect(await ownProfile(a)).toEqual(before);
    const ok = await user("/users/profile", {
      token: a.token,
      body: { nickname: "DJ 🎧 Sam", bio: "line one\nline two" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ nickname: "DJ 🎧 Sam", bio: "line one\nline two" });
    const signUpRes = await user("/users/sign-up", {
      ip: uniqueIp(),
      body: {
        email: `x${Date.now()}@example.com`,
        password: "correct horse battery",
        nickname: "\ud83d",
      },
    });
    expect(signUpRes.status).toBe(400);
  });

  it("is 401 without a token and 403 for a guest, writing nothing", async () => {
    expect((await user("/users/profile", { body: { nickname: "Nobody" } })).status).toBe(401);
    const guest = await user("/users/profile", {
      token: await guestToken(),
      body: { nickname: "Guesty" },
    });
    expect(guest.status).toBe(403);
    expect(await db(env).select().from(users).where(eq(users.nickname, "Guesty")).all()).toEqual(
      [],
    );
  });
});

describe("POST /users/user-socials", () => {
  it("sets and clears handles and answers the own profile", async () => {
    const a = await signUp();
    const set = await user("/users/user-socials", {
      token: a.token,
      body: {
        facebook: "dj.fb",
        instagram: "@dj",
        twitter: "dj_tw",
        snapchat: "djsnap",
        tiktok: "djtok",
      },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      email: a.email,
      facebook: "dj.fb",
      instagram: "@dj",
      twitter: "dj_tw",
      snapchat: "djsnap",
      tiktok: "djtok",
    });
    const cleared = await user("/users/user-socials", { token: a.token, body: { twitter: null } });
    expect(cleared.body).toMatchObject({ twitter: null, facebook: "dj.fb" });
    // Others see the handles on the public profile.
    expect((await user(`/profile/${a.uuid}`)).body).toMatchObject({
      instagram: "@dj",
      twitter: null,
    });
  });

  it("refuses bad input with a message and changes nothing", async () => {
    const a = await signUp();
    await user("/users/user-socials", { token: a.token, body: { tiktok: "keep" } });
    const before = await ownProfile(a);
    const cases: [unknown, string][] = [
      [{}, "Provide at least one of facebook, instagram, twitter, snapchat, tiktok."],
      [{ tiktok: "t".repeat(101) }, "tiktok must be at most 100 characters"],
      [{ facebook: 12 }, "facebook must be a string or null"],
      [{ tiktok: "fine", myspace: "tom" }, 'Unrecognized key: "myspace"'],
    ];
    for (const [body, message] of cases) {
      const res = await user("/users/user-socials", { token: a.token, body });
      expect(res.status).toBe(400);
      expect([res.body.message].flat().join(" | ")).toContain(message);
    }
    expect(await ownProfile(a)).toEqual(before);
  });

  it("is 401 without a token and 403 for a guest", async () => {
    expect((await user("/users/user-socials", { body: { tiktok: "x" } })).status).toBe(401);
    expect(
      (await user("/users/user-socials", { token: await guestToken(), body: { tiktok: "x" } }))
        .status,
    ).toBe(403);
  });
});

describe("GET /profile/{id}", () => {
  it("is public by uuid, without private fields; by sequential id only for admins (no walking every account)", async () => {
    const a = await signUp({ nickname: "Public Face" });
    const plain = await signUp();
    for (const token of [undefined, plain.token, await guestToken()]) {
      for (const path of [`/profile/${a.id}`, `/users/user/${a.id}`]) {
        if (!token && path.startsWith("/users/")) continue;
        const walked = await user(path, { token });
        expect(walked.status, path).toBe(404);
        expect(walked.body.message).toBe(MSG.profileNotFound);
      }
    }
    const boss = await admin();
    for (const path of [`/profile/${a.id}`, `/users/user/${a.id}`])
      expect((await user(path, { token: boss.token })).body.uuid).toBe(a.uuid);
    for (const id of [a.uuid]) {
      const res = await user(`/profile/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        uuid: a.uuid,
        id: a.id,
        nickname: "Public Face",
        badges: [],
      });
      for (const key of ["email", "roles", "capabilities", "emailVerified", "userData"])
        expect(res.body).not.toHaveProperty(key);
    }
  });

  it("is 404 with the catalogue's message for an unknown or deactivated account", async () => {
    const unknown = await user(`/profile/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      statusCode: 404,
      message: MSG.profileNotFound,
      error: "Not Found",
    });
    expect((await user("/profile/99999999")).body.message).toBe("User profile not found.");
    const a = await signUp();
    await setRow(a.uuid, { deactivated: true });
    expect((await user(`/profile/${a.uuid}`)).status).toBe(404);
  });

  it("refuses an id that is neither a uuid nor a number (400), and a forged token (401)", async () => {
    const res = await user("/profile/not-an-id");
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("id must be a UUID or a numeric id");
    const a = await signUp();
    expect((await user(`/profile/${a.uuid}`, { token: FORGED })).status).toBe(401);
  });
});

describe("GET /users/user/{id}", () => {
  it("answers another user's public profile to any valid token, guests included", async () => {
    const a = await signUp({ nickname: "Seen By Guests" });
    const b = await signUp();
    for (const token of [await guestToken(), b.token]) {
      const res = await user(`/users/user/${a.uuid}`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ uuid: a.uuid, nickname: "Seen By Guests" });
      expect(res.body).not.toHaveProperty("email");
    }
  });

  it("is 400 for a bad id, 404 for an unknown one, 401 without a token", async () => {
    const b = await signUp();
    expect((await user("/users/user/abc", { token: b.token })).status).toBe(400);
    const missing = await user(`/users/user/${crypto.randomUUID()}`, { token: b.token });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(MSG.profileNotFound);
    expect((await user(`/users/user/${b.uuid}`)).status).toBe(401);
  });
});

/** Accounts written straight to D1: enough of them to need several IN statements. */
async function bulkAccounts(n: number, prefix: string): Promise<string[]> {
  const uuids = Array.from({ length: n }, () => crypto.randomUUID());
  await env.DB.batch(
    uuids.map((u, i) =>
      env.DB.prepare("insert into users (uuid, nickname) values (?, ?)").bind(u, `${prefix}${i}`),
    ),
  );
  return uuids;
}

describe("GET /users/profiles", () => {
  it("answers public profiles in the order asked, leaving out unknown and deactivated ones", async () => {
    const [a, b, c] = [
      await signUp({ nickname: "First" }),
      await signUp({ nickname: "Second" }),
      await signUp({ nickname: "Third" }),
    ];
    await setRow(c.uuid, { deactivated: true });
    const unknown = crypto.randomUUID();
    const res = await user(
      `/users/profiles?users=${b.uuid},${unknown},${a.uuid},${c.uuid},${b.uuid}`,
      { token: await guestToken() },
    );
    expect(res.status).toBe(200);
    expect(res.body.map((p: { uuid: string }) => p.uuid)).toEqual([b.uuid, a.uuid]);
    expect(res.body[0]).not.toHaveProperty("email");
    // The repeated-parameter form works too.
    const repeated = await user(`/users/profiles?users=${a.uuid}&users=${b.uuid}`, {
      token: a.token,
    });
    expect(repeated.body.map((p: { uuid: string }) => p.uuid)).toEqual([a.uuid, b.uuid]);
  });

  it("takes 150 ids across several D1 statements, in order", async () => {
    const uuids = await bulkAccounts(140, "bulk");
    const asked = [
      ...uuids.slice(70),
      ...Array.from({ length: 10 }, () => crypto.randomUUID()),
      ...uuids.slice(0, 70),
    ].reverse();
    expect(asked).toHaveLength(150);
    const a = await signUp();
    const res = await user(`/users/profiles?users=${asked.join(",")}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.map((p: { uuid: string }) => p.uuid)).toEqual(
      asked.filter((u) => uuids.includes(u)),
    );
  });

  it("refuses 151 ids, none, or a non-uuid with a message", async () => {
    const a = await signUp();
    const ids = Array.from({ length: 151 }, () => crypto.randomUUID());
    const tooMany = await user(`/users/profiles?users=${ids.join(",")}`, { token: a.token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe("users must list at most 150 ids");
    const none = await user("/users/profiles?users=", { token: a.token });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("users must list at least one id");
    const missing = await user("/users/profiles", { token: a.token });
    expect(missing.body.message).toBe("users is required: a comma-separated list of user UUIDs");
    const bad = await user(`/users/profiles?users=${a.uuid},42`, { token: a.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("users.1: each id must be a UUID");
  });

  it("is 401 without a token", async () => {
    const a = await signUp();
    expect((await user(`/users/profiles?users=${a.uuid}`)).status).toBe(401);
  });
});

describe("GET and PUT /users/profile/user-data", () => {
  it("starts empty, then PUT replaces the whole object", async () => {
    const a = await signUp();
    expect((await user("/users/profile/user-data", { token: a.token })).body).toEqual({});
    const first = await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: { theme: "dark", volume: 0.7, muted: ["x"] },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ theme: "dark", volume: 0.7, muted: ["x"] });
    await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: { theme: "light" },
    });
    expect((await user("/users/profile/user-data", { token: a.token })).body).toEqual({
      theme: "light",
    });
  });

  it("takes 16 KB and refuses more (413), a non-object (400) or a non-JSON body (415), keeping what was there", async () => {
    const a = await signUp();
    await user("/users/profile/user-data", { method: "PUT", token: a.token, body: { keep: true } });
    // {"blob":"..."} is 11 bytes of envelope.
    const exact = await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: { blob: "x".repeat(16 * 1024 - 11) },
    });
    expect(exact.status).toBe(200);
    await user("/users/profile/user-data", { method: "PUT", token: a.token, body: { keep: true } });
    const big = await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: { blob: "x".repeat(16 * 1024 - 10) },
    });
    expect(big.status).toBe(413);
    expect(big.body.message).toBe(
      "user data must be at most 16 KB (16384 bytes) as JSON; it was 16385 bytes.",
    );
    const huge = await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: { blob: "x".repeat(100_000) },
    });
    expect(huge.status).toBe(413);
    for (const body of [[1, 2], '"text"', 5]) {
      const res = await user("/users/profile/user-data", {
        method: "PUT",
        token: a.token,
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("user data must be a JSON object");
    }
    const text = await user("/users/profile/user-data", {
      method: "PUT",
      token: a.token,
      body: "{}",
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.body.message).toBe("Send the user data as JSON (Content-Type: application/json).");
    expect((await user("/users/profile/user-data", { token: a.token })).body).toEqual({
      keep: true,
    });
  });

  it("is 401 without a token and 403 for a guest", async () => {
    const guest = await guestToken();
    expect((await user("/users/profile/user-data")).status).toBe(401);
    expect((await user("/users/profile/user-data", { method: "PUT", body: {} })).status).toBe(401);
    expect((await user("/users/profile/user-data", { token: guest })).status).toBe(403);
    expect(
      (await user("/users/profile/user-data", { method: "PUT", token: guest, body: {} })).status,
    ).toBe(403);
  });
});

describe("GET /users/capabilities", () => {
  it("lists the caller's capabilities", async () => {
    const a = await signUp();
    expect((await user("/users/capabilities", { token: a.token })).body).toEqual({
      capabilities: [],
    });
    await setRow(a.uuid, { capabilities: ["uploadMusic"] });
    const res = await user("/users/capabilities", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ capabilities: ["uploadMusic"] });
  });

  it("is 401 without a token and 403 for a guest", async () => {
    expect((await user("/users/capabilities")).status).toBe(401);
    expect((await user("/users/capabilities", { token: await guestToken() })).status).toBe(403);
  });
});

describe("service profile routes", () => {
  it("GET /profile/{id}/service answers the full profile to a service key or an admin, deactivated included", async () => {
    const a = await signUp();
    await setRow(a.uuid, { deactivated: true });
    const res = await user(`/profile/${a.uuid}/service`, { headers: SERVICE });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      uuid: a.uuid,
      email: a.email,
      roles: ["user"],
      deactivated: true,
    });
    expect(
      (await user(`/profile/${a.id}/service`, { token: (await admin()).token })).body.email,
    ).toBe(a.email);
  });

  it("GET /users/service/{id}/user-profile answers the full profile", async () => {
    const a = await signUp();
    const res = await user(`/users/service/${a.id}/user-profile`, { headers: SERVICE });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: a.uuid, email: a.email, hasPassword: true });
    const missing = await user(`/users/service/${crypto.randomUUID()}/user-profile`, {
      headers: SERVICE,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(MSG.profileNotFound);
  });

  it("GET /users/service/all-user-profiles pages with take and skip and counts everyone", async () => {
    const total = (await env.DB.prepare("select count(*) as n from users").first<{ n: number }>())!
      .n;
    const page1 = await user("/users/service/all-user-profiles?take=3", { headers: SERVICE });
    expect(page1.status).toBe(200);
    expect(page1.body.total).toBe(total);
    expect(page1.body.data).toHaveLength(3);
    const page2 = await user("/users/service/all-user-profiles?take=2&skip=2", {
      headers: SERVICE,
    });
    expect(page2.body.data[0].id).toBe(page1.body.data[2].id);
    expect(page1.body.data[0]).toHaveProperty("email");
    const all = await user(`/users/service/all-user-profiles?take=100&skip=${total - 1}`, {
      headers: SERVICE,
    });
    expect(all.body.data).toHaveLength(1);
  });

  it("GET /users/service/update-user-profiles answers what changed since a time, newest first", async () => {
    const a = await signUp();
    const since = Date.now() - 1;
    await user("/users/profile", { token: a.token, body: { bio: "changed" } });
    const changed = await user(`/users/service/update-user-profiles?since=${since}&take=100`, {
      headers: SERVICE,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.map((p: { uuid: string }) => p.uuid)).toContain(a.uuid);
    // Exact order and count with times set directly, far from anything else in this file.
    const [x, y] = [await signUp(), await signUp()];
    const t = Date.now() + 10 * 365 * 86_400_000;
    await setRow(x.uuid, { updatedAt: t + 1 });
    await setRow(y.uuid, { updatedAt: t + 2 });
    const res = await user(`/users/service/update-user-profiles?since=${t}`, { headers: SERVICE });
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([y.uuid, x.uuid]);
    const skipped = await user(`/users/service/update-user-profiles?since=${t}&take=1&skip=1`, {
      headers: SERVICE,
    });
    expect(skipped.body).toMatchObject({ total: 2, data: [{ uuid: x.uuid }] });
  });

  it("refuses bad input with a message", async () => {
    const a = await signUp();
    const cases: [string, string][] = [
      ["/users/service/all-user-profiles?take=0", "take must be at least 1"],
      ["/users/service/all-user-profiles?take=101", "take must be at most 100"],
      ["/users/service/all-user-profiles?skip=-1", "skip must not be negative"],
      [
        "/users/service/update-user-profiles?since=yesterday",
        "since must be a time in epoch milliseconds",
      ],
      [
        "/users/service/update-user-profiles?take=x",
        "take: Invalid input: expected number, received NaN",
      ],
      ["/users/service/bad-id/user-profile", "id must be a UUID or a numeric id"],
      ["/profile/bad-id/service", "id must be a UUID or a numeric id"],
    ];
    for (const [path, message] of cases) {
      const res = await user(path, { headers: SERVICE });
      expect(res.status, path).toBe(400);
      expect(res.body.message, path).toContain(message);
    }
    expect((await user(`/profile/${a.uuid}/service`, { headers: SERVICE })).status).toBe(200);
  });

  it.each([
    "/users/service/all-user-profiles",
    "/users/service/update-user-profiles",
    "/users/service/1/user-profile",
    "/profile/1/service",
  ])(
    "%s is 401 without a token, 401 with a wrong key, 403 to a plain user or a guest",
    async (path) => {
      expect((await user(path)).status).toBe(401);
      const wrongKey = await user(path, { headers: { "X-Service-Key": "nope" } });
      expect(wrongKey.status).toBe(401);
      expect(wrongKey.body.message).toBe("Invalid service key.");
      const plain = await accountWithRoles(["user", "moderator"]);
      expect((await user(path, { token: plain.token })).status).toBe(403);
      expect((await user(path, { token: await guestToken() })).status).toBe(403);
    },
  );
});

import { beforeAll, describe, expect, it } from "vitest";
import { admin, countRows, guestToken, signUp, type TestAccount } from "./helpers";
import {
  assign,
  avatarIdOf,
  linkDiscord,
  makeAvatar,
  makeSeason,
  merch,
  setSubscription,
  uniqueSlug,
  wear,
} from "./avatars-helpers";

let boss: TestAccount;
let plain: TestAccount;
beforeAll(async () => {
  boss = await admin();
  plain = await signUp();
});

describe("admin calls are for admins", () => {
  it("answers 401 without a token and 403 to a plain user, and writes nothing", async () => {
    const a = await makeAvatar(boss.token);
    const before = await countRows("avatars");
    const calls: [string, string, unknown?][] = [
      ["POST", "/avatars", { slug: uniqueSlug(), name: "Nope" }],
      ["PATCH", `/avatars/${a.slug}`, { name: "Nope" }],
      ["DELETE", `/avatars/${a.slug}`],
      ["GET", "/admin/avatars"],
      ["GET", `/admin/avatars/${a.slug}`],
      ["DELETE", `/admin/avatars/${a.slug}`],
      ["POST", `/avatar-assignment/${a.slug}`, { userUuid: plain.uuid, type: "MANUAL" }],
      ["DELETE", `/avatar-assignment/${crypto.randomUUID()}`],
      ["GET", `/service/avatar/${a.slug}`],
      ["POST", "/sentry-testing"],
    ];
    for (const [method, path, body] of calls) {
      const anon = await merch(path, { method, body });
      expect(anon.status, `${method} ${path} without a token`).toBe(401);
      const user = await merch(path, { method, body, token: plain.token });
      expect(user.status, `${method} ${path} as a user`).toBe(403);
      expect(user.body).toMatchObject({ statusCode: 403, error: "Forbidden" });
    }
    expect(await countRows("avatars")).toBe(before);
    expect((await merch(`/avatars/${a.slug}`)).body.name).toBe(`Avatar ${a.slug}`);
  });

  it("lets a service read any avatar with X-Service-Key, and refuses a wrong key", async () => {
    const a = await makeAvatar(boss.token, { status: "PRIVATE" });
    const ok = await merch(`/service/avatar/${a.slug}`, {
      headers: { "X-Service-Key": "test-service-key" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ slug: a.slug, status: "PRIVATE" });
    expect(
      (await merch(`/service/avatar/${a.slug}`, { headers: { "X-Service-Key": "wrong" } })).status,
    ).toBe(401);
    expect((await merch(`/service/avatar/${uniqueSlug()}`, { token: boss.token })).status).toBe(
      404,
    );
  });
});

describe("POST, GET, PATCH, DELETE /avatars", () => {
  it("creates an avatar with defaults and reads it back", async () => {
    const slug = uniqueSlug("neon");
    const res = await merch("/avatars", {
      token: boss.token,
      body: { slug, name: "  Neon Cat ", description: "Glows." },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug,
      name: "Neon Cat",
      description: "Glows.",
      status: "PUBLIC",
      discordOnly: false,
      seasonId: null,
      pointsThreshold: null,
      hasArt: false,
    });
    expect(res.body.imageUrl).toMatch(new RegExp(`^/api/merch-service/avatars/${slug}/image\\?`));
    expect(Object.keys(res.body.thumbnails)).toEqual(["128", "256", "500", "1024"]);
    const got = await merch(`/avatars/${slug}`, { token: plain.token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ slug, locked: false, worn: false, unlock: null });
    expect(got.headers.get("Cache-Control")).toBe("private, max-age=60");
  });

  it("refuses bad input with a 400 and a message, a taken slug with 409, and writes nothing", async () => {
    const taken = await makeAvatar(boss.token);
    const season = await makeSeason();
    const before = await countRows("avatars");
    const cases: [unknown, string | RegExp][] = [
      [{ name: "x" }, /slug/],
      [{ slug: "Bad Slug", name: "x" }, /slug must be 1 to 60 characters/],
      [{ slug: "-edge", name: "x" }, /slug must be/],
      [{ slug: uniqueSlug(), name: "" }, /name must not be empty/],
      [{ slug: uniqueSlug(), name: "n".repeat(61) }, /name must be at most 60 characters/],
      [
        { slug: uniqueSlug(), name: "x", status: "SECRET" },
        /status must be one of PUBLIC, PRIVATE, SEASON_AWARD, SUBSCRIBER_ONLY/,
      ],
      [{ slug: uniqueSlug(), name: "x", discordOnly: "yes" }, /discordOnly must be a boolean/],
      [
        { slug: uniqueSlug(), name: "x", status: "SEASON_AWARD" },
        "A SEASON_AWARD avatar needs seasonId and pointsThreshold.",
      ],
      [
        {
          slug: uniqueSlug(),
          name: "x",
          status: "PUBLIC",
          seasonId: season.id,
          pointsThreshold: 5,
        },
        "seasonId and pointsThreshold apply only to SEASON_AWARD avatars.",
      ],
      [
        {
          slug: uniqueSlug(),
          name: "x",
          status: "SEASON_AWARD",
          seasonId: season.id,
          pointsThreshold: -1,
        },
        /pointsThreshold must not be negative/,
      ],
      [{ slug: uniqueSlug(), name: "x", extra: 1 }, /extra|Unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await merch("/avatars", { token: boss.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(
        typeof message === "string"
          ? new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          : message,
      );
    }
    expect((await merch("/avatars", { token: boss.token, body: "{nope" })).status).toBe(400);
    const dup = await merch("/avatars", {
      token: boss.token,
      body: { slug: taken.slug, name: "Again" },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe(`An avatar with the slug "${taken.slug}" already exists.`);
    const noSeason = await merch("/avatars", {
      token: boss.token,
      body: {
        slug: uniqueSlug(),
        name: "x",
        status: "SEASON_AWARD",
        seasonId: 999999,
        pointsThreshold: 1,
      },
    });
    expect(noSeason.status).toBe(404);
    expect(await countRows("avatars")).toBe(before);
  });

  it("patches fields, keeps SEASON_AWARD consistent, and refuses an empty or bad patch", async () => {
    const season = await makeSeason();
    const a = await makeAvatar(boss.token);
    const res = await merch(`/avatars/${a.slug}`, {
      method: "PATCH",
      token: boss.token,
      body: { name: "Renamed", status: "SEASON_AWARD", seasonId: season.id, pointsThreshold: 100 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      status: "SEASON_AWARD",
      seasonId: season.id,
      pointsThreshold: 100,
    });
    // Leaving SEASON_AWARD drops its season fields.
    const back = await merch(`/avatars/${a.slug}`, {
      method: "PATCH",
      token: boss.token,
      body: { status: "PUBLIC" },
    });
    expect(back.body).toMatchObject({ status: "PUBLIC", seasonId: null, pointsThreshold: null });
    expect(
      (await merch(`/avatars/${a.slug}`, { method: "PATCH", token: boss.token, body: {} })).body
        .message,
    ).toBe("Provide at least one field to update.");
    expect(
      (
        await merch(`/avatars/${a.slug}`, {
          method: "PATCH",
          token: boss.token,
          body: { status: "SEASON_AWARD" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await merch(`/avatars/${uniqueSlug()}`, {
          method: "PATCH",
          token: boss.token,
          body: { name: "x" },
        })
      ).status,
    ).toBe(404);
    expect((await merch(`/avatars/${a.slug}`)).body).toMatchObject({
      name: "Renamed",
      status: "PUBLIC",
    });
  });

  it("deletes an avatar, its assignments, and takes it off everyone wearing it", async () => {
    const a = await makeAvatar(boss.token);
    const wearer = await signUp();
    expect((await wear(wearer.token, a.slug)).status).toBe(200);
    expect((await assign(boss.token, a.slug, wearer.uuid)).status).toBe(201);
    const del = await merch(`/avatars/${a.slug}`, { method: "DELETE", token: boss.token });
    expect(del.status).toBe(200);
    expect(await avatarIdOf(wearer.uuid)).toBeNull();
    expect((await merch(`/avatars/${a.slug}`)).status).toBe(404);
    expect(
      (await merch(`/avatars/${a.slug}`, { method: "DELETE", token: boss.token })).status,
    ).toBe(404);
    const b = await makeAvatar(boss.token);
    await wear(wearer.token, b.slug);
    expect(
      (await merch(`/admin/avatars/${b.slug}`, { method: "DELETE", token: boss.token })).status,
    ).toBe(200);
    expect(await avatarIdOf(wearer.uuid)).toBeNull();
  });
});

describe("who may use and wear which avatar", () => {
  it("PUBLIC: everyone; PRIVATE and SEASON_AWARD: only by assignment; SUBSCRIBER_ONLY: subscribers", async () => {
    const season = await makeSeason("Summer of Sound " + uniqueSlug());
    const pub = await makeAvatar(boss.token, { status: "PUBLIC" });
    const priv = await makeAvatar(boss.token, { status: "PRIVATE" });
    const award = await makeAvatar(boss.token, {
      status: "SEASON_AWARD",
      seasonId: season.id,
      pointsThreshold: 500,
    });
    const sub = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    const u = await signUp();

    const mine = (await merch("/avatars", { token: u.token })).body.map(
      (a: { slug: string }) => a.slug,
    );
    expect(mine).toContain(pub.slug);
    for (const s of [priv.slug, award.slug, sub.slug]) expect(mine).not.toContain(s);

    expect((await wear(u.token, pub.slug)).status).toBe(200);
    for (const [slug, why] of [
      [priv.slug, "Given by the team."],
      [award.slug, `Reach 500 points in ${season.name}.`],
      [sub.slug, "Subscribers only."],
    ]) {
      const res = await wear(u.token, slug);
      expect(res.status, slug).toBe(403);
      expect(res.body.message).toBe(`You cannot use the avatar "${slug}" yet. ${why}`);
    }
    expect(await avatarIdOf(u.uuid)).toBe(pub.slug);
    const unknown = await wear(u.token, uniqueSlug());
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Avatar not found.");

    // A subscriber may use SUBSCRIBER_ONLY; an assignment unlocks PRIVATE and SEASON_AWARD.
    await setSubscription(u.uuid, "PLUS");
    expect((await wear(u.token, sub.slug)).status).toBe(200);
    await assign(boss.token, priv.slug, u.uuid, "MANUAL");
    await assign(boss.token, award.slug, u.uuid, "SEASON_AWARD");
    const now = (await merch("/avatars", { token: u.token })).body.map(
      (a: { slug: string }) => a.slug,
    );
    for (const s of [pub.slug, priv.slug, award.slug, sub.slug]) expect(now).toContain(s);
    expect((await wear(u.token, priv.slug)).status).toBe(200);
    expect((await wear(u.token, award.slug)).status).toBe(200);
    // Clearing is always allowed.
    expect((await wear(u.token, null)).body.avatarId).toBeNull();
  });

  it("discordOnly needs a verified Discord link (or an assignment)", async () => {
    const d = await makeAvatar(boss.token, { discordOnly: true });
    const u = await signUp();
    const res = await wear(u.token, d.slug);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/Link your Discord account\./);
    await linkDiscord(u.id);
    expect((await wear(u.token, d.slug)).status).toBe(200);
    const other = await signUp();
    await assign(boss.token, d.slug, other.uuid);
    expect((await wear(other.token, d.slug)).status).toBe(200);
  });

  it("GET /all-avatars shows every non-PRIVATE avatar with locked and how to unlock", async () => {
    const season = await makeSeason();
    const pub = await makeAvatar(boss.token);
    const priv = await makeAvatar(boss.token, { status: "PRIVATE" });
    const award = await makeAvatar(boss.token, {
      status: "SEASON_AWARD",
      seasonId: season.id,
      pointsThreshold: 42,
    });
    const u = await signUp();
    await wear(u.token, pub.slug);
    const res = await merch("/all-avatars", { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, max-age=60");
    const bySlug = Object.fromEntries(res.body.map((a: { slug: string }) => [a.slug, a]));
    expect(bySlug[pub.slug]).toMatchObject({ locked: false, worn: true, unlock: null });
    expect(bySlug[priv.slug]).toBeUndefined();
    expect(bySlug[award.slug]).toMatchObject({
      locked: true,
      worn: false,
      unlock: { kind: "SEASON_POINTS", points: 42, seasonId: season.id, seasonName: season.name },
      howToUnlock: `Reach 42 points in ${season.name}.`,
    });
    // A PRIVATE avatar one holds is listed for them.
    await assign(boss.token, priv.slug, u.uuid);
    const again = await merch("/all-avatars", { token: u.token });
    expect(again.body.find((a: { slug: string }) => a.slug === priv.slug)).toMatchObject({
      locked: false,
      assignment: { type: "MANUAL" },
    });
    // Without a token: the public ones unlocked, the rest locked.
    const anon = await merch("/all-avatars");
    expect(anon.status).toBe(200);
    expect(anon.body.find((a: { slug: string }) => a.slug === pub.slug)).toMatchObject({
      locked: false,
      worn: false,
    });
  });

  it("GET /avatars/subscriber lists the SUBSCRIBER_ONLY ones, publicly cached for 60 s", async () => {
    const sub = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    const pub = await makeAvatar(boss.token);
    const res = await merch("/avatars/subscriber");
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=60");
    const slugs = res.body.map((a: { slug: string }) => a.slug);
    expect(slugs).toContain(sub.slug);
    expect(slugs).not.toContain(pub.slug);
    expect((await merch("/avatars", { token: plain.token })).headers.get("Cache-Control")).toBe(
      "private, max-age=60",
    );
  });

  it("GET /avatars/{slug}/{uuid} tells whether that user may use it and wears it", async () => {
    const sub = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    const priv = await makeAvatar(boss.token, { status: "PRIVATE" });
    const u = await signUp();
    const asker = await signUp();
    const no = await merch(`/avatars/${sub.slug}/${u.uuid}`, { token: asker.token });
    expect(no.status).toBe(200);
    expect(no.body).toMatchObject({
      slug: sub.slug,
      userUuid: u.uuid,
      canUse: false,
      worn: false,
      unlock: { kind: "SUBSCRIBE" },
    });
    await setSubscription(u.uuid, "PLUS");
    await wear(u.token, sub.slug);
    expect(
      (await merch(`/avatars/${sub.slug}/${u.uuid}`, { token: await guestToken() })).body,
    ).toMatchObject({ canUse: true, worn: true });
    // PRIVATE: hidden from others, visible to the user and admins.
    expect((await merch(`/avatars/${priv.slug}/${u.uuid}`, { token: asker.token })).status).toBe(
      404,
    );
    expect((await merch(`/avatars/${priv.slug}/${u.uuid}`, { token: u.token })).body).toMatchObject(
      { canUse: false },
    );
    expect((await merch(`/avatars/${priv.slug}/${u.uuid}`, { token: boss.token })).status).toBe(
      200,
    );
    expect((await merch(`/avatars/${sub.slug}/${u.uuid}`)).status).toBe(401);
    expect((await merch(`/avatars/${sub.slug}/not-a-uuid`, { token: asker.token })).status).toBe(
      400,
    );
    expect(
      (await merch(`/avatars/${sub.slug}/${crypto.randomUUID()}`, { token: asker.token })).status,
    ).toBe(404);
    expect((await merch(`/avatars/${priv.slug}`, { token: asker.token })).status).toBe(404);
  });

  it("making an avatar PRIVATE or discordOnly takes it off those who lose it; subscribers keep theirs", async () => {
    const a = await makeAvatar(boss.token);
    const loser = await signUp();
    const holder = await signUp();
    await wear(loser.token, a.slug);
    await wear(holder.token, a.slug);
    await assign(boss.token, a.slug, holder.uuid);
    await merch(`/avatars/${a.slug}`, {
      method: "PATCH",
      token: boss.token,
      body: { status: "PRIVATE" },
    });
    expect(await avatarIdOf(loser.uuid)).toBeNull();
    expect(await avatarIdOf(holder.uuid)).toBe(a.slug);

    const s = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    const subscriber = await signUp();
    await setSubscription(subscriber.uuid, "PLUS");
    await wear(subscriber.token, s.slug);
    await merch(`/avatars/${s.slug}`, {
      method: "PATCH",
      token: boss.token,
      body: { name: "Still here" },
    });
    expect(await avatarIdOf(subscriber.uuid)).toBe(s.slug);
    await merch(`/avatars/${s.slug}`, {
      method: "PATCH",
      token: boss.token,
      body: { discordOnly: true },
    });
    expect(await avatarIdOf(subscriber.uuid)).toBeNull();
  });
});

describe("GET /admin/avatars", () => {
  it("lists with the crud query language and refuses unknown fields", async () => {
    const tag = uniqueSlug("crud");
    await makeAvatar(boss.token, { slug: `${tag}-a`, status: "PRIVATE" });
    await makeAvatar(boss.token, { slug: `${tag}-b` });
    const res = await merch(
      `/admin/avatars?filter=slug||$starts||${tag}&filter=status||$eq||PRIVATE&sort=slug,ASC`,
      { token: boss.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, total: 1, page: 1, pageCount: 1 });
    expect(res.body.data[0]).toMatchObject({ slug: `${tag}-a`, status: "PRIVATE" });
    const all = await merch(
      `/admin/avatars?s=${encodeURIComponent(JSON.stringify({ slug: { $starts: tag } }))}&limit=1`,
      { token: boss.token },
    );
    expect(all.body).toMatchObject({ count: 1, total: 2, pageCount: 2 });
    expect(
      (await merch("/admin/avatars?filter=imageKey||$eq||x", { token: boss.token })).status,
    ).toBe(400);
    expect((await merch("/admin/avatars?limit=0", { token: boss.token })).status).toBe(400);
    const one = await merch(`/admin/avatars/${tag}-a`, { token: boss.token });
    expect(one.body).toMatchObject({ slug: `${tag}-a`, wearers: 0, assignments: [] });
  });
});

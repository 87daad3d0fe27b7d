import { env } from "cloudflare:test";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import backfill from "../migrations/0028_default_avatars.sql?raw";
import { db } from "../workers/db/client";
import { users } from "../workers/db/schema";
import { avatarIdOf, makeAvatar, uniqueSlug, wear } from "./avatars-helpers";
import { admin, signUp, user } from "./helpers";
import { accountRow } from "./room-helpers";

/**
 * New users wear an avatar (issue 20): a free one (PUBLIC, not Discord-only) from their first
 * minute, so the floor and the stage never show a blank face; accounts from before got one
 * from migration 0028. Storage is per file: the first test runs with no avatars at all.
 */
describe("default avatar", () => {
  it("with no free avatar yet, sign-up still works and the account wears none", async () => {
    const a = await signUp();
    expect(await avatarIdOf(a.uuid)).toBeNull();
  });

  it("a new account wears a free avatar at once, never a locked one; several newcomers are not all one face; the wearer may change or clear it", async () => {
    const boss = await admin();
    const free = [
      await makeAvatar(boss.token, { slug: uniqueSlug("free") }),
      await makeAvatar(boss.token, { slug: uniqueSlug("free") }),
      await makeAvatar(boss.token, { slug: uniqueSlug("free") }),
    ].map((a) => a.slug);
    const locked = [
      await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" }),
      await makeAvatar(boss.token, { status: "PRIVATE" }),
      await makeAvatar(boss.token, { discordOnly: true }),
    ].map((a) => a.slug);

    const newcomers = [];
    for (let i = 0; i < 8; i++) newcomers.push(await signUp());
    const worn = await Promise.all(newcomers.map((n) => avatarIdOf(n.uuid)));
    for (const slug of worn) {
      expect(free).toContain(slug);
      expect(locked).not.toContain(slug);
    }
    expect(new Set(worn).size).toBeGreaterThan(1);

    // The profile shows it, and it is the user's to change.
    const me = await user("/users/profile", { token: newcomers[0].token });
    expect(me.body.avatarId).toBe(worn[0]);
    const other = free.find((s) => s !== worn[0])!;
    expect((await wear(newcomers[0].token, other)).body.avatarId).toBe(other);
    expect((await wear(newcomers[0].token, null)).body.avatarId).toBeNull();
  });

  it("migration 0028 gives accounts without an avatar a free one and leaves the rest alone", async () => {
    const boss = await admin();
    const free = await makeAvatar(boss.token, { slug: uniqueSlug("free") });
    const bare = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const uuid of bare) await accountRow(uuid); // rows as older sign-ups left them
    const dressed = crypto.randomUUID();
    await accountRow(dressed);
    await wearDirect(dressed, free.slug);

    await env.DB.prepare(backfill).run();

    const rows = await db(env)
      .select({ uuid: users.uuid, avatarId: users.avatarId })
      .from(users)
      .where(inArray(users.uuid, [...bare, dressed]))
      .all();
    const publicSlugs = (
      await env.DB.prepare(
        `SELECT slug FROM avatars WHERE status = 'PUBLIC' AND discord_only = 0`,
      ).all<{ slug: string }>()
    ).results.map((r) => r.slug);
    for (const r of rows) expect(publicSlugs).toContain(r.avatarId);
    expect(rows.find((r) => r.uuid === dressed)!.avatarId).toBe(free.slug);
  });
});

async function wearDirect(uuid: string, slug: string) {
  await env.DB.prepare(`UPDATE users SET avatar_id = ? WHERE uuid = ?`).bind(slug, uuid).run();
}

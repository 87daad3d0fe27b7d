import { env } from "cloudflare:test";
import { and, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { songs } from "../workers/db/schema";
import { newShortId } from "../workers/songs/dto";
import {
  BY_TRACK_NAME,
  catalogueSearchWhere,
  ftsQuery,
  matchesSearch,
  NEWEST_MATCHES,
  songPage,
  uploadSearchWhere,
} from "../workers/songs/search";

const add = (
  trackName: string,
  artistName: string,
  extra: Partial<typeof songs.$inferInsert> = {},
) =>
  db(env)
    .insert(songs)
    .values({
      songId: crypto.randomUUID(),
      songShortId: newShortId(),
      trackName,
      artistName,
      status: "VERIFIED",
      isPublic: true,
      ...extra,
    })
    .returning()
    .get();

const search = async (q: string, tag: string) =>
  (
    await db(env)
      .select()
      .from(songs)
      .where(and(matchesSearch(q)!, sql`${songs.genre} = ${tag}`))
      .all()
  )
    .map((s) => s.trackName)
    .sort();

describe("catalogue full-text search", () => {
  it("finds by word prefixes across track, artist and album, ignoring case and accents", async () => {
    const tag = `g-${crypto.randomUUID()}`;
    await add("Blue Monday", "New Order", { genre: tag, albumName: "Power, Corruption & Lies" });
    await add("Crazy in Love", "Beyoncé", { genre: tag });
    await add("Monday Monday", "The Mamas & the Papas", { genre: tag });
    expect(await search("blue mon", tag)).toEqual(["Blue Monday"]);
    expect(await search("MONDAY", tag)).toEqual(["Blue Monday", "Monday Monday"]);
    expect(await search("beyonce", tag)).toEqual(["Crazy in Love"]);
    expect(await search("corruption", tag)).toEqual(["Blue Monday"]);
  });

  it("keeps the index in step with edits and deletes", async () => {
    const tag = `g-${crypto.randomUUID()}`;
    const s = await add("Working Title", "Someone", { genre: tag });
    await db(env)
      .update(songs)
      .set({ trackName: "Final Name" })
      .where(sql`${songs.id} = ${s.id}`);
    expect(await search("working", tag)).toEqual([]);
    expect(await search("final", tag)).toEqual(["Final Name"]);
    await db(env)
      .delete(songs)
      .where(sql`${songs.id} = ${s.id}`);
    expect(await search("final", tag)).toEqual([]);
  });

  it("treats FTS operators in the input as plain words", () => {
    expect(ftsQuery('AC/DC "NEAR" OR *')).toBe('"AC"* "DC"* "NEAR"* "OR"*');
    expect(ftsQuery("  -- ")).toBeNull();
  });
});

/** The query plans of every statement `run` sends to D1 (it runs against a recording binding). */
async function plansOf(run: (e: typeof env) => Promise<unknown>): Promise<string[]> {
  const statements: { sql: string; params: unknown[] }[] = [];
  const record = (q: string) => {
    const stmt = env.DB.prepare(q);
    return new Proxy(stmt, {
      get(target, key) {
        if (key === "bind")
          return (...params: unknown[]) => (
            statements.push({ sql: q, params }),
            target.bind(...params)
          );
        const v = Reflect.get(target, key);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  };
  const DB = new Proxy(env.DB, {
    get(target, key) {
      if (key === "prepare") return record;
      const v = Reflect.get(target, key);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  await run({ ...env, DB });
  const plans = [];
  for (const s of statements) {
    const rows = await env.DB.prepare(`explain query plan ${s.sql}`)
      .bind(...s.params)
      .all<{ detail: string }>();
    plans.push(rows.results.map((r) => r.detail).join(" | "));
  }
  return plans;
}

describe("search query plans", () => {
  it("are driven by the FTS matches (rowid lookups), never by a songs index over the whole catalogue", async () => {
    const who = crypto.randomUUID();
    const match = matchesSearch("blue mo")!;
    const upload = await plansOf((e) =>
      songPage(e, uploadSearchWhere(match, who), NEWEST_MATCHES, 20, 0),
    );
    const local = await plansOf((e) =>
      songPage(e, catalogueSearchWhere(match, who, false), BY_TRACK_NAME, 20, 0),
    );
    expect(upload).toHaveLength(2);
    expect(local).toHaveLength(2);
    for (const plan of [...upload, ...local]) {
      expect(plan).toContain("SEARCH songs USING INTEGER PRIMARY KEY (rowid=?)");
      expect(plan).toContain("SCAN songs_fts VIRTUAL TABLE");
      expect(plan).not.toMatch(
        /songs_status_public_idx|songs_owner_idx|MULTI-INDEX OR|SCAN songs(?!_fts)/,
      );
    }
    // The upload search's page walks the matches newest first and stops at the page: no sort of every match.
    expect(upload[0]).not.toContain("TEMP B-TREE");
  });

  it("pages the upload search newest first, as created_at orders it", async () => {
    const owner = crypto.randomUUID();
    const word = `zq${crypto.randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 5; i++)
      await add(`${word} ${i}`, "Someone", { ownerUuid: owner, isPublic: i % 2 === 0 });
    const page = await songPage(
      env,
      uploadSearchWhere(matchesSearch(word)!, crypto.randomUUID()),
      NEWEST_MATCHES,
      2,
      0,
    );
    expect(page.total).toBe(3);
    expect(page.data.map((s) => s.trackName)).toEqual([`${word} 4`, `${word} 2`]);
    const own = await songPage(
      env,
      uploadSearchWhere(matchesSearch(word)!, owner),
      NEWEST_MATCHES,
      10,
      0,
    );
    expect(own.data.map((s) => s.trackName)).toEqual([4, 3, 2, 1, 0].map((i) => `${word} ${i}`));
  });
});

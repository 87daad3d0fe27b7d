import { env } from "cloudflare:test";
import { and, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { songs } from "../workers/db/schema";
import { newShortId } from "../workers/songs/dto";
import { ftsQuery, matchesSearch } from "../workers/songs/search";

const add = (trackName: string, artistName: string, extra: Partial<typeof songs.$inferInsert> = {}) =>
  db(env).insert(songs).values({ songId: crypto.randomUUID(), songShortId: newShortId(), trackName, artistName, status: "VERIFIED", isPublic: true, ...extra }).returning().get();

const search = async (q: string, tag: string) =>
  (await db(env).select().from(songs).where(and(matchesSearch(q)!, sql`${songs.genre} = ${tag}`)).all()).map((s) => s.trackName).sort();

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
    await db(env).update(songs).set({ trackName: "Final Name" }).where(sql`${songs.id} = ${s.id}`);
    expect(await search("working", tag)).toEqual([]);
    expect(await search("final", tag)).toEqual(["Final Name"]);
    await db(env).delete(songs).where(sql`${songs.id} = ${s.id}`);
    expect(await search("final", tag)).toEqual([]);
  });

  it("treats FTS operators in the input as plain words", () => {
    expect(ftsQuery('AC/DC "NEAR" OR *')).toBe('"AC"* "DC"* "NEAR"* "OR"*');
    expect(ftsQuery("  -- ")).toBeNull();
  });
});

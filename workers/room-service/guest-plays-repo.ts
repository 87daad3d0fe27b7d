import { eq } from "drizzle-orm";
import { GUEST_FREE_PLAYS } from "../../shared/rooms";
import { db } from "../db/client";
import { guestPlays } from "../db/schema";
import type { Env } from "../env";

/** Guests counted in one statement: one bound JSON array, well inside D1's statement size. */
const CHUNK = 500;

/**
 * Counts play `playId` for each of `guests` in D1 (guest_plays), at most once per guest per
 * play: a row whose last counted play is this one is left alone, so the room outbox's retry
 * of a write whose answer was lost counts nothing twice. One statement per CHUNK guests,
 * all in one batch (atomic), with the uuids bound as one JSON array.
 */
export async function recordGuestPlays(env: Pick<Env, "DB">, playId: string, guests: string[]) {
  if (!guests.length) return;
  const now = Date.now();
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < guests.length; i += CHUNK)
    stmts.push(
      env.DB.prepare(
        `insert into guest_plays (guest_uuid, plays, last_play_id, updated_at)
         select value, 1, ?1, ?2 from json_each(?3) where true
         on conflict (guest_uuid) do update set plays = plays + 1,
           last_play_id = excluded.last_play_id, updated_at = excluded.updated_at
         where last_play_id is not excluded.last_play_id`,
      ).bind(playId, now, JSON.stringify(guests.slice(i, i + CHUNK))),
    );
  await env.DB.batch(stmts);
}

/**
 * Whether a guest has heard more songs than GUEST_FREE_PLAYS (the song on air when the count
 * passed the limit is the first they may not hear). The stream asks this, so a guest past
 * the limit cannot play by fetching the playlist around the page. The count is written by
 * the room's outbox as each song starts, so at worst it lands a moment after the playlist
 * is asked for: one song's playlist at most, never a second.
 */
export async function guestOverFreePlays(env: Pick<Env, "DB">, guestUuid: string) {
  const row = await db(env)
    .select({ plays: guestPlays.plays })
    .from(guestPlays)
    .where(eq(guestPlays.guestUuid, guestUuid))
    .get();
  return (row?.plays ?? 0) > GUEST_FREE_PLAYS;
}

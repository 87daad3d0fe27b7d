/**
 * The demo DJ (issue 20, "the demo feels alive"): a seeded bot account that the room itself
 * keeps on stage, playing the demo music, with no socket and no outside process.
 *
 * Configured by the environment only: `DEMO_DJS` lists `room:djUuid` pairs (the room by slug
 * or uuid), comma-separated. Unset (production's default) there is no demo DJ anywhere;
 * `npm install` writes the seeded rooms' pairs into .dev.vars (scripts/setup.mjs).
 *
 * Invariants:
 * - The demo DJ is a present user without sockets: every check clears the grace that the
 *   boot (presence.recover) or anything else started for it, so it never leaves on its own.
 * - Checks run one at a time (a single promise), every DEMO_CHECK_MS from the room's one
 *   alarm (schedule entry `demo-dj`), at boot and whenever settings arrive. Each check reads
 *   D1 first (the bot's profile, its queue, songs to fill it) and only then writes SQLite, in
 *   one synchronous step, re-checking the stage after the awaits.
 * - The room's rules still bind it: a ban or kick, a djDisabled role, a full stage, live
 *   audio or an unset room keep it off the stage. Its AFK clock is reset each check (a bot
 *   that is playing is not away), and the repeat window does not apply to its picks (the
 *   demo music is eight short songs; playback.ts asks `exempt`).
 * - Its queue is its own queue crate in D1, refilled (up to QUEUE_FILL songs, each once)
 *   from public verified uploads whenever it holds fewer than QUEUE_LOW.
 */
import { and, asc, eq, isNotNull, lte } from "drizzle-orm";
import { z } from "zod";
import { db } from "../../workers/db/client";
import { songs } from "../../workers/db/schema";
import type { Env } from "../../workers/env";
import { addSong, specialCrate } from "../../workers/crates/crate-repo";
import { djFacts, queueLength } from "./library";
import type { Playback } from "./playback";
import { GRACE_PREFIX } from "./presence";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS, RoomView } from "./view";

export const DEMO_KEY = "demo-dj";
/** How often the room checks its demo DJ (seated, present, queue filled). */
export const DEMO_CHECK_MS = 60_000;
const QUEUE_LOW = 3;
const THROTTLE_MS = 5_000;
const QUEUE_FILL = 12;

const pairs = z
  .string()
  .max(4000)
  .transform((s) =>
    s
      .split(",")
      .map((p) => p.trim().split(":"))
      .filter((p) => p.length === 2 && p[0] && p[1])
      .slice(0, 50)
      .map(([room, dj]) => ({ room: room.trim(), dj: dj.trim() })),
  );

/** The demo DJ `DEMO_DJS` names for a room (by its slug or uuid), or null. */
export function demoDjOf(config: string | undefined, room: { slug: string; uuid: string }) {
  const parsed = pairs.safeParse(config ?? "");
  if (!parsed.success) return null;
  const hit = parsed.data.find((p) => p.room === room.slug || p.room === room.uuid);
  return hit && hit.dj.length <= 64 ? hit.dj : null;
}

export class DemoDj {
  #running: Promise<void> | null = null;
  #lastAt = 0;

  constructor(
    private readonly env: Env,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly playback: Playback,
    private readonly rearm: () => void,
    /** Whether the room is set up (settings pushed, not deleted): room/identity.ts. */
    private readonly ready: () => boolean,
  ) {}

  /** This room's demo DJ, if the environment names one. */
  uuid(): string | null {
    return demoDjOf(this.env.DEMO_DJS, this.storage.settings());
  }

  /** Whether `uuid` is this room's demo DJ (its picks skip the repeat window). */
  exempt(uuid: string): boolean {
    return uuid === this.uuid();
  }

  /** Resolves when the check under way, if any, has ended (the alarm handler waits on it). */
  idle(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  /**
   * Runs a check unless one is under way (then answers that one). Settings arrive with every
   * join, so a check asked for within THROTTLE_MS of the last one is skipped unless `due`
   * (the alarm's): a crowd joining costs the room no D1 reads for its demo DJ.
   */
  check(due = false): Promise<void> {
    const now = Date.now();
    if (!this.#running && !due && now - this.#lastAt < THROTTLE_MS) return Promise.resolve();
    this.#running ??= this.#check()
      .catch((e) => console.error("room: demo DJ check failed", e))
      .finally(() => (this.#running = null));
    return this.#running;
  }

  async #check() {
    const dj = this.uuid();
    if (!dj || !this.ready()) {
      this.storage.unschedule(DEMO_KEY);
      this.rearm();
      return;
    }
    this.#lastAt = Date.now(); // a room set up with a demo DJ: later checks may be throttled
    // Before any await: a grace the boot started for it (no socket) never runs out.
    if (this.storage.user(dj) && !this.#barred(dj, Date.now())) this.#stay(dj, Date.now());
    this.storage.schedule(DEMO_KEY, Date.now() + DEMO_CHECK_MS);
    this.rearm();
    const facts = await djFacts(this.env, dj);
    if (!facts.profile) {
      // The account is gone: nobody to seat, and nobody to keep present.
      if (this.storage.user(dj)) {
        this.storage.deleteUser(dj);
        this.publisher.mark(PEOPLE_KEYS, "userLeft");
        this.playback.removeFromStage(dj, "userLeft");
      }
      return;
    }
    if ((await queueLength(this.env, dj)) < QUEUE_LOW) await this.#fill(dj);
    // After the awaits: the stage and the settings may have changed.
    const now = Date.now();
    if (this.uuid() !== dj || !this.ready()) return;
    if (this.#barred(dj, now)) return;
    const view = new RoomView(this.storage, now);
    const held = view.rolesOf(dj);
    const profile = {
      uuid: dj,
      nickname: facts.profile.name,
      avatarId: facts.profile.avatarId,
      color: facts.profile.color,
      badges: [...facts.profile.badges],
    };
    const before = this.storage.user(dj);
    // Only a change is published: the minute's check of a DJ already there sends no frame.
    const changed =
      !before ||
      before.disconnected_at !== null ||
      JSON.stringify(this.storage.profile(dj)) !== JSON.stringify(profile);
    this.storage.setProfile(dj, profile);
    this.#stay(dj, now);
    if (changed) this.publisher.mark(PEOPLE_KEYS, "userJoined");
    const seated = this.storage.djs().some((d) => d.uuid === dj);
    if (!seated) {
      const s = view.settings;
      if (s.liveAudio || held.has("djDisabled") || this.storage.djs().length >= s.numberOfDjs)
        return;
      this.storage.addDj(dj, null);
      this.playback.seated(dj, now);
      this.publisher.mark(PEOPLE_KEYS, "addedDj");
    } else this.playback.acted(dj, now);
    if (!this.storage.playing()) await this.playback.advance();
  }

  /** A ban or kick keeps the demo DJ out like anyone. */
  #barred(dj: string, now: number): boolean {
    const held = new RoomView(this.storage, now).rolesOf(dj);
    return held.has("banned") || held.has("kicked");
  }

  /** Present with no socket and no grace running. */
  #stay(dj: string, now: number) {
    const known = this.storage.user(dj);
    this.storage.upsertUser(
      {
        uuid: dj,
        token_role: known?.token_role ?? "bot",
        guest: 0,
        email_verified: 1,
        pro: 0,
      },
      now,
    );
    this.storage.unschedule(`${GRACE_PREFIX}${dj}`);
  }

  /** Tops the demo DJ's queue crate up with public verified uploads it does not hold yet. */
  async #fill(dj: string) {
    const queue = await specialCrate(this.env, dj, "queue");
    const max = this.storage.settings().maxSongSeconds;
    const picks = await db(this.env)
      .select()
      .from(songs)
      .where(
        and(
          eq(songs.status, "VERIFIED"),
          eq(songs.isPublic, true),
          isNotNull(songs.ownerUuid),
          lte(songs.duration, max),
        ),
      )
      .orderBy(asc(songs.id))
      .limit(QUEUE_FILL)
      .all();
    // Each demo DJ starts the loop at its own song, so two demo rooms do not play in unison.
    const k = picks.length
      ? [...dj].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % picks.length
      : 0;
    for (const song of [...picks.slice(k), ...picks.slice(0, k)])
      await addSong(this.env, queue, song, true, true);
  }
}

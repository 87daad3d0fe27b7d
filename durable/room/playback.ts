/**
 * Playback and the stage rotation (seed 001 Playback; issue 4 "Seats", "Playback").
 *
 * Invariants:
 * - While a song plays, its DJ is the first seat. Seats are only reordered when a play
 *   stops after running its course or being skipped (`stop(rotate)`): the DJ goes to the
 *   back. A DJ who leaves is removed and nothing rotates, so the next DJ in order is now
 *   first and plays next: nobody is skipped.
 * - Starting a song needs D1 (the queue), so every start goes through one promise chain
 *   (`advance`), and after each await the chain re-reads SQLite and gives up if the stage
 *   changed under it. Stopping is synchronous, so a leave or skip takes effect at once.
 * - A stopped play is logged in SQLite (the outbox) in the same synchronous step; the chain
 *   writes it to D1 (idempotently, by play id) before it picks the next song, so the DJ's
 *   rotated queue is what the next pick of theirs reads. Failures retry from the schedule.
 * - `song-end` in the schedule is always the end of the play in `room_playing`, if any.
 * - Each seated DJ has `room_dj_stats` (last action, songs started this stay) and, while
 *   afkMinutes > 0, the entry `afk:<uuid>`; leaving the stage removes both. The current DJ
 *   is never taken off mid-song for AFK or songsPerDj: `end` checks when their song stops.
 * - A song plays only while the room is on air (`onAir`: isLive and not liveAudio); every
 *   start goes through `#advance`, which checks it, and going off air stops the song at once.
 */
import type { ClientMessage, ServerMessage, StatefulMessageName } from "../../shared/protocol";
import type { Env } from "../../workers/env";
import { pickSong, recordPlay, type PickedSong } from "./library";
import { refillOrWarn, refillTurn } from "./refill";
import { NAMES, ROOM_LINE } from "./messages";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS } from "./view";

/** Keys a change of song touches. */
const SONG_KEYS = ["nowPlaying", "voteCounts", "vibeMeter"] as const;
export const RETRY_MS = 5_000;
/** The schedule key of one DJ's AFK check (due at their last action + afkMinutes). */
export const afkKey = (uuid: string) => `afk:${uuid}`;

/** Actions that reset a DJ's AFK clock: votes, chat, seat actions, the next song (never ping, joinRoom, loadChat). */
export const DJ_ACTIONS: ReadonlySet<ClientMessage["action"]> = new Set<ClientMessage["action"]>([
  "voteOnSong",
  "sendChat",
  "reactChat",
  "editChat",
  "deleteChat",
  "addDj",
  "removeDj",
  "joinWaitlist",
  "skipSong",
  "updateNextSong",
  "playOneTimeAnimation",
]);

export class Playback {
  #chain: Promise<void> = Promise.resolve();
  /**
   * A seat may have freed: the waiting list seats its first in line (room.ts sets it to
   * Waitlist.fill). Called synchronously, before the rotation moves on.
   */
  seatFreed: () => number = () => 0;

  constructor(
    private readonly env: Env,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly rearm: () => void,
    private readonly sendTo: (uuid: string, message: ServerMessage) => void,
    /** A room chat message (type room). */
    private readonly say: (text: string) => void = () => {},
    /** A song went on air (the guests' free plays count it). */
    private readonly started: (playId: string) => void = () => {},
    /** A DJ whose picks skip the repeat window (the demo DJ's short loop, room/demo-dj.ts). */
    private readonly repeatExempt: (djUuid: string) => boolean = () => false,
  ) {}

  /** Resolves when every start queued so far has run (the alarm handler waits on it). */
  idle(): Promise<void> {
    return this.#chain;
  }

  /**
   * Stops the current play, if any: logs it, clears its votes, and with `rotate` moves its
   * DJ to the back of the stage. Answers whether something was playing.
   */
  stop(rotate: boolean, name: StatefulMessageName): boolean {
    const p = this.storage.playing();
    if (!p) return false;
    const song = JSON.parse(p.song) as { songId: string };
    this.storage.logPlay({
      play_id: p.play_id,
      song_id: song.songId,
      song: p.song,
      dj_uuid: p.dj_uuid,
      played_at: p.start_time,
      vote_counts: JSON.stringify(this.storage.votes.counts(p.play_id)),
      rotate: rotate ? 1 : 0,
      crate_id: p.crate_id,
      crate_song_uuid: p.crate_song_uuid,
    });
    this.storage.clearPlaying();
    this.storage.votes.clear();
    this.storage.unschedule("song-end");
    if (rotate) this.storage.moveDjToBack(p.dj_uuid);
    this.publisher.mark([...SONG_KEYS, "djs"], name);
    this.rearm();
    return true;
  }

  /** Takes a DJ off the stage; if their song was playing it stops and the next DJ plays. */
  removeFromStage(uuid: string, name: StatefulMessageName): boolean {
    const current = this.storage.playing()?.dj_uuid === uuid;
    this.storage.unschedule(afkKey(uuid));
    if (!this.storage.removeDj(uuid)) return false;
    this.publisher.mark(PEOPLE_KEYS, name);
    if (current) this.stop(false, name);
    this.seatFreed();
    void this.advance();
    return true;
  }

  /** The current play ran its course (the alarm) or was skipped: rotate, then play on. */
  end(name: StatefulMessageName): Promise<void> {
    const dj = this.storage.playing()?.dj_uuid;
    const leaving = dj ? this.#stepDownReason(dj, Date.now()) : null;
    // Marked first, so the frame of this tick is named removedDj.
    if (leaving) this.publisher.mark(PEOPLE_KEYS, "removedDj");
    this.stop(true, name);
    if (dj && leaving) {
      this.removeFromStage(dj, "removedDj");
      this.say(leaving);
    }
    return this.advance();
  }

  // ---- AFK and songsPerDj (issue 4 "Beyond every peer") --------------------------------------

  /** A DJ sat down: a new stay (no songs yet) and its AFK check. */
  seated(uuid: string, now: number) {
    this.storage.startDjStay(uuid, now);
    this.#scheduleAfk(uuid, now);
  }

  /** A user acted (vote, chat, seat action, next song): if seated, their AFK check moves. */
  acted(uuid: string, now: number) {
    if (this.storage.djActed(uuid, now)) this.#scheduleAfk(uuid, now);
  }

  #scheduleAfk(uuid: string, lastAction: number) {
    const { afkMinutes } = this.storage.settings();
    if (afkMinutes > 0) this.storage.schedule(afkKey(uuid), lastAction + afkMinutes * 60_000);
    else this.storage.unschedule(afkKey(uuid));
    this.rearm();
  }

  /**
   * The AFK schedule entry of `uuid` fired. A DJ idle for afkMinutes leaves the stage, but
   * the current DJ only at the end of their song (`end` checks again). An entry that fired
   * before its time (the DJ acted since, or an early alarm) is set again.
   */
  afkDue(uuid: string, now: number) {
    const st = this.storage.djStats(uuid);
    const { afkMinutes } = this.storage.settings();
    if (!st || afkMinutes <= 0) return;
    const due = st.last_action + afkMinutes * 60_000;
    if (due > now) {
      this.storage.schedule(afkKey(uuid), due);
      this.rearm();
      return;
    }
    if (this.storage.playing()?.dj_uuid === uuid) return; // at the end of their song
    if (this.removeFromStage(uuid, "removedDj")) this.say(ROOM_LINE.away(this.#nameOf(uuid)));
  }

  /** Why the DJ whose song just ended steps down (a room message), or null if they stay. */
  #stepDownReason(uuid: string, now: number): string | null {
    const st = this.storage.djStats(uuid);
    if (!st) return null;
    const s = this.storage.settings();
    if (s.afkMinutes > 0 && st.last_action + s.afkMinutes * 60_000 <= now)
      return ROOM_LINE.away(this.#nameOf(uuid));
    if (s.songsPerDj !== null && st.songs >= s.songsPerDj) {
      return ROOM_LINE.turnOver(this.#nameOf(uuid), st.songs, s.songsPerDj);
    }
    return null;
  }

  #nameOf(uuid: string): string {
    return this.storage.profile(uuid)?.nickname || NAMES.someDj;
  }

  /**
   * Songs from the DJs' queues play only while the room is live (isLive) and no live audio
   * stream stands in for the rotation (liveAudio). docs/DECISIONS.md "Rooms: live state".
   */
  onAir(): boolean {
    const s = this.storage.settings();
    return s.isLive && !s.liveAudio;
  }

  /**
   * The settings changed: off air, the song playing stops now (logged, its DJ keeps the
   * first seat and plays again when the room is back on air); on air, the rotation resumes.
   */
  settingsChanged(): void {
    this.seatFreed(); // more seats, or the live audio over
    if (!this.onAir()) this.stop(false, "updatedRoomSettings");
    else void this.advance();
  }

  /** Queues a start: if nothing plays and someone is on stage, the first DJ plays. */
  advance(): Promise<void> {
    this.#chain = this.#chain
      .then(() => this.#advance())
      .catch((e) => console.error("room: advance failed", e));
    return this.#chain;
  }

  async #advance() {
    await this.#drainOutbox();
    // Each pass either starts a song, stops, refills a DJ's queue once, or takes one DJ with
    // nothing to play off the stage; the bound only guards against a stage that keeps
    // changing under us.
    const refilled = new Set<string>();
    for (let pass = 0; pass < 32; pass++) {
      if (this.storage.playing() || !this.onAir()) return;
      const dj = this.storage.djs()[0];
      if (!dj) return;
      const s = this.storage.settings();
      const now = Date.now();
      const recent =
        s.repeatWindowMinutes > 0 && !this.repeatExempt(dj.uuid)
          ? this.storage.playedSince(now - s.repeatWindowMinutes * 60_000)
          : new Set<string>();
      let picked: PickedSong | null;
      try {
        picked = await pickSong(this.env, dj.uuid, s.maxSongSeconds, recent);
      } catch (e) {
        console.error("room: reading the queue failed; retrying", e);
        this.storage.schedule("advance", Date.now() + RETRY_MS);
        this.rearm();
        return;
      }
      // The stage may have changed while D1 answered.
      if (this.storage.playing()) return;
      if (this.storage.djs()[0]?.uuid !== dj.uuid) continue;
      // Nothing to play on their turn: first the crate they chose refills the queue (once).
      if (!picked && !refilled.has(dj.uuid)) {
        refilled.add(dj.uuid);
        if (await refillTurn(this.env, dj.uuid, recent, this.sendTo)) continue;
        if (this.storage.playing() || this.storage.djs()[0]?.uuid !== dj.uuid) continue;
      }
      if (!picked) {
        // Still nothing: the DJ steps down (issue 4), told why, and the waiting list moves.
        this.storage.removeDj(dj.uuid);
        this.storage.unschedule(afkKey(dj.uuid));
        this.rearm();
        this.publisher.mark(PEOPLE_KEYS, "removedDj");
        this.sendTo(dj.uuid, { name: "queueNotice", params: { kind: "dropped", songs: 0 } });
        this.seatFreed();
        continue;
      }
      this.#start(dj.uuid, picked);
      return;
    }
  }

  #start(djUuid: string, picked: PickedSong) {
    const start = Date.now();
    const end = start + Math.max(1, picked.song.duration) * 1000;
    const playId = crypto.randomUUID();
    this.storage.setPlaying({
      play_id: playId,
      dj_uuid: djUuid,
      song: JSON.stringify(picked.song),
      start_time: start,
      end_time: end,
      crate_id: picked.crateId,
      crate_song_uuid: picked.song.crateSongUuid,
    });
    this.storage.unschedule("advance");
    this.storage.countDjSong(djUuid);
    this.storage.schedule("song-end", end);
    this.rearm();
    this.publisher.mark(SONG_KEYS, "playedSong");
    this.started(playId);
    // The DJ whose song follows this one hears it now (issue 4: a notice to the DJ up next).
    const next = this.storage.djs()[1];
    if (next && next.uuid !== djUuid) this.sendTo(next.uuid, { name: "youAreNext", params: {} });
    this.#lookAhead(next?.uuid ?? djUuid, picked.song.songId);
  }

  /**
   * The DJ who plays after this song (or the lone DJ again) learns now, not at their turn,
   * that their queue has nothing left to play: it is refilled from their crate, or they are
   * told to add songs before their turn (issue 20). Chained, so tests can wait on `idle`.
   */
  #lookAhead(uuid: string, playingSongId: string) {
    const s = this.storage.settings();
    const recent =
      s.repeatWindowMinutes > 0
        ? this.storage.playedSince(Date.now() - s.repeatWindowMinutes * 60_000)
        : new Set<string>();
    // The song starting now counts as played by the time theirs starts.
    if (s.repeatWindowMinutes > 0) recent.add(playingSongId);
    this.#chain = this.#chain
      .then(() => refillOrWarn(this.env, uuid, s.maxSongSeconds, recent, this.sendTo))
      .catch((e) => console.error("room: queue look-ahead failed", e));
  }

  /** Writes logged plays to D1; one that fails stays logged and is retried later. */
  async #drainOutbox() {
    const slug = this.storage.settings().slug;
    for (const play of this.storage.unrecordedPlays()) {
      try {
        await recordPlay(this.env, play, slug);
        this.storage.markRecorded(play.play_id);
      } catch (e) {
        console.error(`room: recording play ${play.play_id} failed; retrying`, e);
        this.storage.schedule("outbox", Date.now() + RETRY_MS * 6);
        this.rearm();
        return;
      }
    }
  }

  /** Retries the outbox alone (a schedule entry). */
  retryOutbox(): Promise<void> {
    this.#chain = this.#chain
      .then(() => this.#drainOutbox())
      .catch((e) => console.error("room: outbox failed", e));
    return this.#chain;
  }
}

/**
 * The DJ waiting list (issue 20, as on plug.dj): when the seats are full a listener joins
 * the list, sees their place, and the room seats the first in line as a seat frees.
 *
 * Invariants:
 * - The Room is the only authority: the list is in SQLite (waitlist-storage.ts), one row per
 *   user, at most WAITLIST_MAX.
 * - `fill` is synchronous (no await between reading the head and seating it), and it is the
 *   only place that seats from the list; it runs on every change that can free a seat
 *   (Playback.seatFreed), so a freed seat is filled exactly once, by the first in line,
 *   however many leaves, kicks and joins race for it.
 * - Whoever `fill` takes off the list is checked against the seat rule again (a role may have
 *   changed since they joined): someone who may no longer DJ is dropped, not seated.
 * - Leaving the room (grace end, kick, ban) deletes the row (RoomStorage.deleteUser), and
 *   taking a seat by hand takes the user off the list.
 */
import type { ServerMessage } from "../../shared/protocol";
import type { Env } from "../../workers/env";
import type { Who } from "./actions";
import { emptyQueueRefusal } from "./library";
import { STAGE_MSG, WAITLIST_MSG } from "./messages";
import type { Playback } from "./playback";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS, RoomView } from "./view";

export class Waitlist {
  constructor(
    private readonly env: Env,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly playback: Playback,
    private readonly sendTo: (uuid: string, m: ServerMessage) => void,
  ) {}

  /** Why `who` may not wait for a seat now, or null. */
  #refusal(who: Who): string | null {
    if (who.tokenType === "ghost") return STAGE_MSG.ghost;
    const view = new RoomView(this.storage, Date.now());
    if (view.settings.liveAudio) return STAGE_MSG.liveAudio;
    if (this.storage.djs().some((d) => d.uuid === who.uuid)) return STAGE_MSG.alreadyDj;
    return view.djRefusal({
      uuid: who.uuid,
      guest: who.tokenType === "guest" ? 1 : 0,
      email_verified: who.emailVerified ? 1 : 0,
      pro: who.pro ? 1 : 0,
    });
  }

  /**
   * Puts `who` at the back of the list (already on it: nothing changes). With a seat free
   * (so nobody waits) the fill that follows seats them at once.
   */
  async join(who: Who): Promise<string | null> {
    const early = this.#refusal(who);
    if (early) return early;
    if (this.storage.waitlist.placeOf(who.uuid)) return null;
    const noSong = await emptyQueueRefusal(this.env, who.uuid, WAITLIST_MSG.emptyQueue);
    if (noSong) return noSong;
    // Checked again after the await: they may have sat down in another tab meanwhile.
    const late = this.#refusal(who);
    if (late) return late;
    if (!this.storage.user(who.uuid)) return null; // left the room while D1 answered
    if (!this.storage.waitlist.push(who.uuid))
      return this.storage.waitlist.placeOf(who.uuid) ? null : WAITLIST_MSG.full;
    this.publisher.mark(["waitlist"], "updatedWaitlist");
    if (this.fill() && !this.storage.playing()) void this.playback.advance();
    return null;
  }

  leave(who: Who): string | null {
    if (!this.storage.waitlist.remove(who.uuid)) return WAITLIST_MSG.notWaiting;
    this.publisher.mark(["waitlist"], "updatedWaitlist");
    return null;
  }

  /** A user took a seat by hand: they stop waiting. */
  seated(uuid: string) {
    if (this.storage.waitlist.remove(uuid)) this.publisher.mark(["waitlist"], "updatedWaitlist");
  }

  /**
   * Seats the first in line while a seat is free. Answers how many were seated; the caller
   * starts the rotation if nothing plays (Playback calls this before its own advance).
   */
  fill(): number {
    const view = new RoomView(this.storage, Date.now());
    if (view.settings.liveAudio) return 0;
    let seated = 0;
    let changed = false;
    while (this.storage.djs().length < view.settings.numberOfDjs) {
      const next = this.storage.waitlist.first();
      if (!next) break;
      this.storage.waitlist.remove(next);
      changed = true;
      const u = this.storage.user(next);
      if (!u || view.djRefusal(u) || this.storage.djs().some((d) => d.uuid === next)) continue;
      this.storage.addDj(next, null);
      this.playback.seated(next, Date.now());
      this.sendTo(next, { name: "seatedFromWaitlist", params: {} });
      seated++;
    }
    if (seated) this.publisher.mark(PEOPLE_KEYS, "addedDj");
    else if (changed) this.publisher.mark(["waitlist"], "updatedWaitlist");
    return seated;
  }
}

/**
 * The client actions that change the stage: seats, skip, votes, next song. Each answers
 * an error message (sent to that socket alone, nothing changed) or null when it succeeded.
 *
 * Invariants:
 * - Every rule is checked against SQLite with no await between the check and the write;
 *   the one action that awaits D1 (addDj: is the queue empty?) checks everything again
 *   after the await.
 * - A vote is keyed (play id, user): sent twice, it counts once.
 * - The auto-skip threshold scales with active listeners, not everyone present:
 *   dislikes >= ceil(autoSkipRatio x max(2, active)); a ratio of 0 turns it off.
 */
import type { FreePlayCount } from "./free-plays";
import type { ClientMessage, SongVotes } from "../../shared/protocol";
import type { TokenType, UserRole } from "../../shared/roles";
import type { Env } from "../../workers/env";
import type { Effects } from "./effects";
import { fansMessageFor } from "../../workers/queues/fan-notifications";
import { emptyQueueRefusal } from "./library";
import { STAGE_MSG } from "./messages";
import { votePointsEvents } from "./points";
import type { ChatProfile } from "./profile";
import type { Playback } from "./playback";
import type { Marks, NeedsState } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS, RoomView } from "./view";

/** What a connection remembers about its caller (the socket attachment survives hibernation). */
export interface Caller extends NeedsState {
  uuid: string;
  tokenType: TokenType;
  roles: UserRole[];
  /** The account's session version when the gateway admitted the socket (0: none). */
  sv: number;
  emailVerified: boolean;
  pro: boolean;
  /** The chat identity read from D1 at connect (null: no account, or D1 failed). */
  profile: ChatProfile | null;
  /** A guest's songs heard against the free-play limit (room/free-plays.ts). */
  freePlays?: FreePlayCount;
  /** "ttfm": a tt.live bot behind /primus (room/ttfm-dialect.ts encodes what it hears). */
  dialect?: "ttfm";
  /** A bot's socket that answered its joinRoom hears the room from then on. */
  ttfmJoined?: boolean;
}

/** A caller as handlers see it (the attachment is read-only). */
export type Who = Readonly<Omit<Caller, "roles">> & { readonly roles: readonly UserRole[] };

type Act<A extends ClientMessage["action"]> = Extract<ClientMessage, { action: A }>;

export class StageActions {
  constructor(
    private readonly env: Env,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly playback: Playback,
    private readonly effects: Effects,
  ) {}

  #refusal(view: RoomView, who: Who): string | null {
    if (who.tokenType === "ghost") return STAGE_MSG.ghost;
    // The live stream is the room's music: no seat would ever play (playback.ts onAir).
    if (view.settings.liveAudio) return STAGE_MSG.liveAudio;
    if (this.storage.djs().some((d) => d.uuid === who.uuid)) return STAGE_MSG.alreadyDj;
    const refused = view.djRefusal({
      uuid: who.uuid,
      guest: who.tokenType === "guest" ? 1 : 0,
      email_verified: who.emailVerified ? 1 : 0,
      pro: who.pro ? 1 : 0,
    });
    if (refused) return refused;
    if (this.storage.djs().length >= view.settings.numberOfDjs) return STAGE_MSG.full;
    return null;
  }

  async addDj(who: Who, msg: Act<"addDj">): Promise<string | null> {
    const early = this.#refusal(new RoomView(this.storage, Date.now()), who);
    if (early) return early;
    const noSong = await emptyQueueRefusal(this.env, who.uuid, STAGE_MSG.emptyQueue);
    if (noSong) return noSong;
    // Checked again: the booth may have filled (or the user sat down in another tab) meanwhile.
    const late = this.#refusal(new RoomView(this.storage, Date.now()), who);
    if (late) return late;
    this.storage.addDj(who.uuid, msg.song ?? null);
    this.playback.seated(who.uuid, Date.now());
    this.publisher.mark(PEOPLE_KEYS, "addedDj");
    this.#tellFans(who);
    if (!this.storage.playing()) void this.playback.advance();
    return null;
  }

  /**
   * "X is DJing in Y" to the new DJ's fans (issue 14), owed in the outbox in the same step as
   * the seat, so an eviction cannot lose it. Only for a room anyone may open (no fan is sent
   * into a private or password room) and only for accounts. Each fan hears it at most once
   * an hour per DJ, and hopping on and off one room's stage within the hour fans out once
   * (a per-room fan-out key, fan-notifications.ts).
   */
  #tellFans(who: Who) {
    const s = this.storage.settings();
    if (who.tokenType !== "user" || s.type !== "PUBLIC" || s.isPasswordProtected) return;
    const at = Date.now();
    this.effects.add(`djLive:${who.uuid}:${at}`, {
      kind: "notify",
      message: fansMessageFor(
        who.uuid,
        {
          kind: "dj_live",
          title: `${who.profile?.name ?? "A DJ you follow"} is DJing`.slice(0, 100),
          body: `in ${s.name}`.slice(0, 500),
          data: { roomSlug: s.slug, djUuid: who.uuid },
          throttleKey: `dj_live:${who.uuid}`,
        },
        undefined,
        `fanout:dj_live:${who.uuid}:${s.uuid}`,
      ),
    });
    void this.effects.drain();
  }

  removeDj(who: Who, msg: Act<"removeDj">): string | null {
    const target = msg.djUuid ?? who.uuid;
    // Another DJ only by someone who outranks them (shared/permissions.ts).
    if (
      target !== who.uuid &&
      new RoomView(this.storage, Date.now()).refusalFor(who, "removeDj", target)
    )
      return STAGE_MSG.notMod;
    if (!this.storage.djs().some((d) => d.uuid === target)) return STAGE_MSG.notDj;
    this.playback.removeFromStage(target, "removedDj");
    return null;
  }

  skipSong(who: Who): string | null {
    const p = this.storage.playing();
    if (!p) return STAGE_MSG.noSong;
    if (
      p.dj_uuid !== who.uuid &&
      new RoomView(this.storage, Date.now()).refusalFor(who, "skipSong", p.dj_uuid)
    )
      return STAGE_MSG.skipForbidden;
    void this.playback.end("playedSong");
    return null;
  }

  voteOnSong(who: Who, msg: Act<"voteOnSong">): string | null {
    if (who.tokenType === "ghost") return STAGE_MSG.ghost;
    // Guests listen: a vote needs an account (free guest tokens could auto-skip every song).
    if (who.tokenType === "guest") return STAGE_MSG.guestVote;
    const p = this.storage.playing();
    if (!p) return STAGE_MSG.noSong;
    const { like, star } = msg.songVotes;
    const before = this.storage.votes.userVote(p.play_id, who.uuid);
    this.storage.votes.vote(p.play_id, who.uuid, like, star, before);
    // Off the hot path but never lost: the vote counts now, and what it owes outside the
    // object is written to the outbox in this same step (effects.ts), then drained.
    if (star && !before?.star) {
      const songId = (JSON.parse(p.song) as { songId: string }).songId;
      this.effects.add(`star:${p.play_id}:${who.uuid}`, {
        kind: "star",
        userUuid: who.uuid,
        songId,
      });
    }
    for (const message of votePointsEvents({
      playId: p.play_id,
      djUuid: p.dj_uuid,
      voterUuid: who.uuid,
      voterType: who.tokenType,
      like,
      star,
      before,
      at: Date.now(),
    }))
      this.effects.add(`points:${message.eventId}`, { kind: "points", message });
    void this.effects.drain();
    this.publisher.mark(["voteCounts", "vibeMeter"], "votedOnSong");
    this.#maybeAutoSkip(p.play_id);
    return null;
  }

  /** The user's whole vote on the current song (`yourVote`); `{}` when none. */
  yourVote(uuid: string): SongVotes {
    const p = this.storage.playing();
    const v = p ? this.storage.votes.userVote(p.play_id, uuid) : undefined;
    const out: SongVotes = {};
    if (v?.vote_like != null) out.like = v.vote_like === 1;
    if (v?.star) out.star = true;
    return out;
  }

  #maybeAutoSkip(playId: string) {
    const { autoSkipRatio } = this.storage.settings();
    if (autoSkipRatio <= 0) return;
    const now = Date.now();
    const threshold = Math.ceil(autoSkipRatio * Math.max(2, this.storage.activeCount(now)));
    if (this.storage.votes.counts(playId).dislikes >= threshold)
      void this.playback.end("playedSong");
  }

  updateNextSong(who: Who, msg: Act<"updateNextSong">): string | null {
    if (!this.storage.setNextSong(who.uuid, msg.song)) return STAGE_MSG.nextSongNotDj;
    this.publisher.mark(["djs"], "updatedNextSong");
    return null;
  }
}

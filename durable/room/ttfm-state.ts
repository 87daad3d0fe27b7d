/**
 * The room state as a tt.live bot holds it (`ClientRoomState`, REFERENCE.md), kept in step
 * with what browsers hold: one translation per frame, shared by every bot socket.
 *
 * Where the shapes differ, and how a browser frame becomes a bot's:
 * - `chat` is not in the bot's document: its operations are dropped, and each new line
 *   leaves as a stateless `chatMessage` instead (bots read chat that way; README.md).
 * - `waitlist` (ours, not ttfm-socket's) is not in it either: its operations are dropped.
 * - `allUserData/<uuid>` carries `songVotes` for the bot (the browser's does not: a vote
 *   storm would reach every browser, docs/DECISIONS.md). A user's entry is added with their
 *   vote; each frame appends a `replace` of the songVotes of whoever voted since the last
 *   frame, and a new song clears them all.
 * - The join answer's `allUserData` is `{}`; the joiner's first frame is `updatedUserData`
 *   adding every entry (the client's own order, TTFM-PROTOCOL.md 5).
 * - Every other key (users, djs, nowPlaying, votes, vibe, settings) has the same shape in
 *   both (settings and nowPlaying are supersets of the bot's), so their operations pass as
 *   they are. `songsRemainingForDj` is the room's `songsPerDj` (0: no limit) and no frame
 *   changes it.
 *
 * Invariants:
 * - Every patch applies, with validation, to the join snapshot plus every patch since: the
 *   votes this module adds are the ones `#held` says the bots hold, and `#held` is only
 *   moved by the operations it emits (or rebuilt when no bot held anything: `#seq` stale).
 * - A frame is translated once (cached by seq), however many bots hear it.
 */
import type { JsonPatchOp, JsonValue } from "../../shared/json-patch";
import type { ChatMessage, RoomState, SongVotes, StatefulMessage } from "../../shared/protocol";
import { TTFM_STATEFUL_NAMES } from "../../shared/protocol-ttfm";
import type { RoomStorage } from "./storage";
import type { VoteRow } from "./vote-storage";

/** A browser frame as bots get it: the patch (possibly empty), the same for every bot. */
export interface TtfmFrame {
  seq: number;
  name: string;
  statePatch: JsonPatchOp[];
}

/**
 * The chat lines a frame adds. Per text, not per seq: a socket whose user blocked someone
 * gets its own copy of the frame with the chat filtered (room/blocks.ts), and so do bots.
 */
export function chatLines(frame: StatefulMessage): ChatMessage[] {
  return frame.statePatch.flatMap((op) =>
    op.op === "add" && CHAT_LINE.test(op.path) ? [op.value as unknown as ChatMessage] : [],
  );
}

/** The key of a frame's first operation names frames of ours the client has no name for. */
const NAME_BY_KEY: Record<string, string> = {
  nowPlaying: "playedSong",
  voteCounts: "votedOnSong",
  vibeMeter: "votedOnSong",
  settings: "updatedRoomSettings",
  djs: "addedDj",
  visibleDjs: "addedDj",
};

const escape = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
const unescape = (k: string) => k.replace(/~1/g, "/").replace(/~0/g, "~");
const USER_ENTRY = /^\/allUserData\/([^/]+)$/;
const CHAT_LINE = /^\/chat\/\d+$/;

function votesOf(row: VoteRow | undefined): SongVotes {
  const v: SongVotes = {};
  if (row?.vote_like != null) v.like = row.vote_like === 1;
  if (row?.star) v.star = true;
  return v;
}
const sameVotes = (a: SongVotes, b: SongVotes) => a.like === b.like && !!a.star === !!b.star;

export class TtfmState {
  /** Each user's non-empty vote on `#play`, as every bot's document holds it. */
  #held = new Map<string, SongVotes>();
  #play: string | null = null;
  /** The seq `#held` is current at; anything else means it must be rebuilt. */
  #seq = -1;
  #last: TtfmFrame | null = null;

  constructor(private readonly storage: RoomStorage) {}

  #rebuild(seq: number) {
    this.#play = this.storage.playing()?.play_id ?? null;
    this.#held = new Map();
    if (this.#play) {
      for (const [u, row] of this.storage.votes.all(this.#play)) {
        const v = votesOf(row);
        if (v.like !== undefined || v.star) this.#held.set(u, v);
      }
      this.storage.votes.takeChanged(this.#play);
    }
    this.#seq = seq;
  }

  #present(): Record<string, unknown> {
    return (this.storage.published.get("allUserData") ?? {}) as Record<string, unknown>;
  }

  /**
   * The join answer's state at the published `seq`, and the `updatedUserData` patch that
   * fills its `allUserData` (sent to the joiner alone, after the answer).
   */
  snapshot(published: RoomState, seq: number): { state: unknown; userData: JsonPatchOp[] } {
    if (this.#seq !== seq) this.#rebuild(seq);
    const {
      chat: _chat,
      waitlist: _waitlist,
      userCount: _users,
      audienceCount: _audience,
      allUserData,
      ...rest
    } = published;
    const userData: JsonPatchOp[] = Object.entries(allUserData).map(([uuid, data]) => ({
      op: "add",
      path: `/allUserData/${escape(uuid)}`,
      value: { ...data, songVotes: this.#held.get(uuid) ?? {} } as unknown as JsonValue,
    }));
    const state = {
      ...rest,
      allUserData: {},
      songsRemainingForDj: published.settings.songsPerDj ?? 0,
    };
    return { state, userData };
  }

  /**
   * `ServerRoomState` (ttfm-socket types/state.d.ts), the answer to a seat action: the stage
   * and the song from storage (the action just changed them; the published state is a tick
   * behind), the users from the published state (a seat action does not move them).
   */
  serverRoomState(published: RoomState) {
    const playing = this.storage.playing();
    return {
      allUsers: published.allUsers.map((u) => ({ uuid: u.uuid, tokenRole: u.tokenRole })),
      djs: this.storage.djs().map((d) => ({
        userUuid: d.uuid,
        nextSongId: d.next_song
          ? ((JSON.parse(d.next_song) as { songId?: string }).songId ?? null)
          : null,
      })),
      nowPlaying: playing
        ? {
            songId: (JSON.parse(playing.song) as { songId: string }).songId,
            startTime: playing.start_time,
            endTime: playing.end_time,
          }
        : null,
      shouldRemoveDjAfterSong: false,
      songsRemainingForDj: published.settings.songsPerDj ?? 0,
    };
  }

  /** The bots' copy of a browser frame (called once per frame, in seq order, as it is sent). */
  translate(frame: StatefulMessage): TtfmFrame {
    if (this.#last?.seq === frame.seq) return this.#last;
    // A frame no bot heard the one before of: nobody holds votes to move; start afresh.
    if (this.#seq !== frame.seq - 1) this.#rebuild(frame.seq - 1);
    const ops: JsonPatchOp[] = [];
    for (const op of frame.statePatch) {
      if (op.path === "/chat" || op.path.startsWith("/chat/")) continue;
      if (op.path === "/waitlist" || op.path.startsWith("/waitlist/")) continue;
      // ttfm-socket's state has no counts (its allUsers is the count a bot reads).
      if (op.path === "/userCount" || op.path === "/audienceCount") continue;
      const entry = op.op === "add" ? USER_ENTRY.exec(op.path) : null;
      if (entry && op.op === "add") {
        const votes = this.#held.get(unescape(entry[1])) ?? {};
        ops.push({
          ...op,
          value: { ...(op.value as object), songVotes: votes } as unknown as JsonValue,
        });
      } else ops.push(op);
    }
    ops.push(...this.#voteOps());
    this.#seq = frame.seq;
    const name = TTFM_STATEFUL_NAMES.has(frame.name)
      ? frame.name
      : (NAME_BY_KEY[ops[0]?.path.split("/")[1] ?? ""] ?? "userJoined");
    this.#last = { seq: frame.seq, name, statePatch: ops };
    return this.#last;
  }

  /** `replace`s of the songVotes that changed since the last frame (all of them on a new song). */
  #voteOps(): JsonPatchOp[] {
    const present = this.#present();
    const ops: JsonPatchOp[] = [];
    const set = (uuid: string, v: SongVotes) => {
      const before = this.#held.get(uuid) ?? {};
      if (sameVotes(before, v)) return;
      if (v.like === undefined && !v.star) this.#held.delete(uuid);
      else this.#held.set(uuid, v);
      if (uuid in present)
        ops.push({
          op: "replace",
          path: `/allUserData/${escape(uuid)}/songVotes`,
          value: v as JsonValue,
        });
    };
    const play = this.storage.playing()?.play_id ?? null;
    if (play !== this.#play) {
      for (const uuid of [...this.#held.keys()]) set(uuid, {});
      this.#play = play;
      if (play) for (const [u, row] of this.storage.votes.all(play)) set(u, votesOf(row));
      if (play) this.storage.votes.takeChanged(play);
      return ops;
    }
    if (play)
      for (const u of this.storage.votes.takeChanged(play))
        set(u, votesOf(this.storage.votes.userVote(play, u)));
    return ops;
  }
}

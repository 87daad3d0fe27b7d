/**
 * The Room object's SQLite tables and every read and write of them. Nothing else in the
 * room touches `ctx.storage.sql`, so the tables' rules live here.
 *
 * Invariants:
 * - Everything that must survive eviction is here: settings, roles, present users (with
 *   their grace deadline), DJ seats, what is playing, votes, recent plays, the schedule,
 *   the seq, the published state and the pending (unflushed) change set; the chat history
 *   (chat-storage.ts), the delivered consumables (consumable-storage.ts) and the owed side
 *   effects (effects.ts) in modules of their own that only RoomStorage creates.
 * - `room_djs.seat` orders the stage; a DJ moved to the back gets max(seat) + 1, so seats
 *   never repeat.
 * - A vote row is keyed (play_id, user_uuid): a retried vote overwrites itself, it never
 *   counts twice. Votes of a play are deleted when the play stops. `room_vote_counts` holds
 *   each play's counts, moved by each vote's delta, so a vote never sums the votes.
 * - `room_plays` is the play log and the D1 outbox in one: a play is written here (and so
 *   counts for the repeat window) the moment it stops; `recorded` turns 1 once D1 holds it.
 * - All calls are synchronous (SQLite in a Durable Object is), so a caller that reads,
 *   decides and writes without an `await` in between is never interleaved.
 */
import { roomSettingsSchema, type RoomRoleName, type RoomSettings } from "../../shared/rooms";
import { ChatStorage } from "./chat-storage";
import { ConsumableStorage } from "./consumable-storage";
import { EffectStorage } from "./effects";
import { PublishedStorage } from "./published-storage";
import type {
  ClientSong,
  NowPlaying,
  StatefulMessageName,
  TokenRole,
  UserProfile,
  VoteCounts,
} from "../../shared/protocol";

export const GRACE_MS = 30_000;
export const ACTIVE_WINDOW_MS = 10 * 60_000;
/** How long the active-listener count (vibe meter, auto-skip) may be reused before a recount. */
export const ACTIVE_CACHE_MS = 5_000;

export type UserRow = {
  uuid: string;
  token_role: TokenRole;
  guest: number;
  email_verified: number;
  pro: number;
  joined_at: number;
  last_active: number;
  /** Set while the user has no socket: they stay listed (and seated) until the grace ends. */
  disconnected_at: number | null;
};

export type DjRow = {
  uuid: string;
  seat: number;
  next_song: string | null;
};

export type PlayingRow = {
  play_id: string;
  dj_uuid: string;
  song: string;
  start_time: number;
  end_time: number;
  crate_id: number;
  crate_song_uuid: string;
};

export type PlayRow = {
  play_id: string;
  song_id: string;
  song: string;
  dj_uuid: string;
  played_at: number;
  vote_counts: string;
  rotate: number;
  crate_id: number;
  crate_song_uuid: string;
  recorded: number;
};

export type ScheduleRow = {
  key: string;
  due: number;
};

type Sql = SqlStorage;

export class RoomStorage {
  /** The chat history (room_chat). */
  readonly chat: ChatStorage;
  /** The consumables delivered here (room_consumables). */
  readonly consumables: ConsumableStorage;
  /** Side effects still owed outside the object (room_effects, effects.ts). */
  readonly effects: EffectStorage;
  /** What clients hold at the current seq, per entry (room_pub_keys, room_pub_entries). */
  readonly published: PublishedStorage;
  /** The cached active-listener count (activeCount) and when it was counted. */
  #active: { at: number; n: number } | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly roomName: () => string,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_meta (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)`,
    );
    sql.exec(`INSERT OR IGNORE INTO room_meta (id, seq) VALUES (1, 0)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_roles (user_uuid TEXT NOT NULL, role TEXT NOT NULL, expiration_time INTEGER, PRIMARY KEY (user_uuid, role))`,
    );
    // The presence version of this object kept `room_presence`; its rows were only ever a
    // copy of the live sockets, so it is dropped rather than migrated.
    sql.exec(`DROP TABLE IF EXISTS room_presence`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_users (
      uuid TEXT PRIMARY KEY, token_role TEXT NOT NULL, guest INTEGER NOT NULL, email_verified INTEGER NOT NULL,
      pro INTEGER NOT NULL, joined_at INTEGER NOT NULL, last_active INTEGER NOT NULL, disconnected_at INTEGER)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_djs (uuid TEXT PRIMARY KEY, seat INTEGER NOT NULL, next_song TEXT)`,
    );
    sql.exec(`CREATE TABLE IF NOT EXISTS room_playing (id INTEGER PRIMARY KEY CHECK (id = 1), play_id TEXT NOT NULL, dj_uuid TEXT NOT NULL,
      song TEXT NOT NULL, start_time INTEGER NOT NULL, end_time INTEGER NOT NULL, crate_id INTEGER NOT NULL, crate_song_uuid TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_votes (play_id TEXT NOT NULL, user_uuid TEXT NOT NULL, vote_like INTEGER, star INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (play_id, user_uuid))`);
    // Counts per play, kept by each vote's delta (a vote is O(1), never a sum over votes).
    const hadCounts = sql
      .exec<{ n: number }>(
        `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'room_vote_counts'`,
      )
      .one().n;
    sql.exec(`CREATE TABLE IF NOT EXISTS room_vote_counts (play_id TEXT PRIMARY KEY, likes INTEGER NOT NULL DEFAULT 0,
      dislikes INTEGER NOT NULL DEFAULT 0, stars INTEGER NOT NULL DEFAULT 0)`);
    // An object from before the counters had only votes: counted once, when the table is new.
    if (!hadCounts)
      sql.exec(`INSERT INTO room_vote_counts (play_id, likes, dislikes, stars)
        SELECT play_id, sum(vote_like = 1), sum(vote_like = 0), sum(star) FROM room_votes GROUP BY play_id`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_plays (play_id TEXT PRIMARY KEY, song_id TEXT NOT NULL, song TEXT NOT NULL, dj_uuid TEXT NOT NULL,
      played_at INTEGER NOT NULL, vote_counts TEXT NOT NULL, rotate INTEGER NOT NULL, crate_id INTEGER NOT NULL, crate_song_uuid TEXT NOT NULL,
      recorded INTEGER NOT NULL DEFAULT 0)`);
    sql.exec(`CREATE INDEX IF NOT EXISTS room_plays_song ON room_plays (song_id, played_at)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_schedule (key TEXT PRIMARY KEY, due INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_pending (key TEXT PRIMARY KEY, name TEXT NOT NULL, at INTEGER NOT NULL)`,
    );
    // Added with allUserData / AFK / songsPerDj: separate tables, so older objects need no migration.
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_profiles (uuid TEXT PRIMARY KEY, json TEXT NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_dj_stats (uuid TEXT PRIMARY KEY, last_action INTEGER NOT NULL, songs INTEGER NOT NULL DEFAULT 0)`,
    );
    this.chat = new ChatStorage(sql);
    this.consumables = new ConsumableStorage(sql);
    this.effects = new EffectStorage(sql);
    this.published = new PublishedStorage(sql);
  }

  // ---- settings and roles ---------------------------------------------------------------

  /** The stored settings, or the defaults (slug = the object's name) until the room-service pushes some. */
  settings(): RoomSettings {
    const row = this.sql
      .exec<{ json: string }>(`SELECT json FROM room_settings WHERE id = 1`)
      .toArray()[0];
    if (row) return roomSettingsSchema.parse(JSON.parse(row.json));
    return roomSettingsSchema.parse({
      uuid: this.roomName(),
      slug: this.roomName(),
      name: this.roomName(),
    });
  }

  setSettings(s: RoomSettings) {
    this.sql.exec(
      `INSERT INTO room_settings (id, json) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json`,
      JSON.stringify(s),
    );
  }

  /** Roles in force (no expiry, or a future one), ordered for a stable list. */
  roles(now: number): { user_uuid: string; role: RoomRoleName; expiration_time: number | null }[] {
    return this.sql
      .exec<{ user_uuid: string; role: RoomRoleName; expiration_time: number | null }>(
        `SELECT user_uuid, role, expiration_time FROM room_roles WHERE expiration_time IS NULL OR expiration_time > ? ORDER BY user_uuid, role`,
        now,
      )
      .toArray();
  }

  setRole(userUuid: string, role: RoomRoleName, expirationTime: number | null) {
    this.sql.exec(
      `INSERT INTO room_roles (user_uuid, role, expiration_time) VALUES (?, ?, ?) ON CONFLICT (user_uuid, role) DO UPDATE SET expiration_time = excluded.expiration_time`,
      userUuid,
      role,
      expirationTime,
    );
  }

  removeRole(userUuid: string, role: RoomRoleName): boolean {
    return (
      this.sql.exec(`DELETE FROM room_roles WHERE user_uuid = ? AND role = ?`, userUuid, role)
        .rowsWritten > 0
    );
  }

  deleteExpiredRoles(now: number) {
    this.sql.exec(
      `DELETE FROM room_roles WHERE expiration_time IS NOT NULL AND expiration_time <= ?`,
      now,
    );
  }

  // ---- users ----------------------------------------------------------------------------

  users(): UserRow[] {
    return this.sql.exec<UserRow>(`SELECT * FROM room_users ORDER BY joined_at, uuid`).toArray();
  }

  user(uuid: string): UserRow | undefined {
    return this.sql.exec<UserRow>(`SELECT * FROM room_users WHERE uuid = ?`, uuid).toArray()[0];
  }

  /** A (re)connecting user: a new row, or the old one with its place kept and the grace cleared. */
  upsertUser(u: Omit<UserRow, "joined_at" | "last_active" | "disconnected_at">, now: number) {
    this.sql.exec(
      `INSERT INTO room_users (uuid, token_role, guest, email_verified, pro, joined_at, last_active, disconnected_at) VALUES (?, ?, ?, ?, ?, ?, 0, NULL)
       ON CONFLICT (uuid) DO UPDATE SET token_role = excluded.token_role, guest = excluded.guest, email_verified = excluded.email_verified,
         pro = excluded.pro, disconnected_at = NULL`,
      u.uuid,
      u.token_role,
      u.guest,
      u.email_verified,
      u.pro,
      now,
    );
  }

  markDisconnected(uuid: string, now: number) {
    this.sql.exec(
      `UPDATE room_users SET disconnected_at = ? WHERE uuid = ? AND disconnected_at IS NULL`,
      now,
      uuid,
    );
  }

  deleteUser(uuid: string) {
    const u = this.#active && this.user(uuid);
    if (u && this.#active && u.last_active > this.#active.at - ACTIVE_WINDOW_MS)
      this.#active.n = Math.max(0, this.#active.n - 1);
    this.sql.exec(`DELETE FROM room_users WHERE uuid = ?`, uuid);
    this.sql.exec(`DELETE FROM room_profiles WHERE uuid = ?`, uuid);
  }

  /** The profile read from D1 at connect (allUserData); kept while the user is present. */
  setProfile(uuid: string, profile: UserProfile) {
    this.sql.exec(
      `INSERT INTO room_profiles (uuid, json) VALUES (?, ?) ON CONFLICT (uuid) DO UPDATE SET json = excluded.json`,
      uuid,
      JSON.stringify(profile),
    );
  }

  profiles(): Map<string, UserProfile> {
    return new Map(
      this.sql
        .exec<{ uuid: string; json: string }>(`SELECT uuid, json FROM room_profiles`)
        .toArray()
        .map((r) => [r.uuid, JSON.parse(r.json) as UserProfile]),
    );
  }

  profile(uuid: string): UserProfile | undefined {
    const row = this.sql
      .exec<{ json: string }>(`SELECT json FROM room_profiles WHERE uuid = ?`, uuid)
      .toArray()[0];
    return row ? (JSON.parse(row.json) as UserProfile) : undefined;
  }

  /** Records an action; answers whether the user was inactive before (the active count changed). */
  touch(uuid: string, now: number): boolean {
    const row = this.sql
      .exec<{ last_active: number }>(`SELECT last_active FROM room_users WHERE uuid = ?`, uuid)
      .toArray()[0];
    if (!row) return false;
    this.sql.exec(`UPDATE room_users SET last_active = ? WHERE uuid = ?`, now, uuid);
    const woke = row.last_active <= now - ACTIVE_WINDOW_MS;
    if (woke && this.#active) this.#active.n++;
    return woke;
  }

  /**
   * Users present (sockets or grace) who sent an action within the active window. Counting
   * them is a scan of the room, so the count is cached for ACTIVE_CACHE_MS: a user who
   * becomes active or leaves moves the cached count at once, and only users aging out of
   * the window are seen up to that late (docs/DECISIONS.md "Rooms live state").
   */
  activeCount(now: number): number {
    if (this.#active && now - this.#active.at < ACTIVE_CACHE_MS && now >= this.#active.at)
      return this.#active.n;
    const n = this.sql
      .exec<{ n: number }>(
        `SELECT count(*) AS n FROM room_users WHERE last_active > ?`,
        now - ACTIVE_WINDOW_MS,
      )
      .one().n;
    this.#active = { at: now, n };
    return n;
  }

  // ---- DJ seats -------------------------------------------------------------------------

  djs(): DjRow[] {
    return this.sql
      .exec<DjRow>(`SELECT uuid, seat, next_song FROM room_djs ORDER BY seat`)
      .toArray();
  }

  /** Adds a DJ at the back of the stage. */
  addDj(uuid: string, nextSong: ClientSong | null) {
    this.sql.exec(
      `INSERT INTO room_djs (uuid, seat, next_song) VALUES (?, (SELECT coalesce(max(seat), 0) + 1 FROM room_djs), ?)`,
      uuid,
      nextSong ? JSON.stringify(nextSong) : null,
    );
  }

  removeDj(uuid: string): boolean {
    this.sql.exec(`DELETE FROM room_dj_stats WHERE uuid = ?`, uuid);
    return this.sql.exec(`DELETE FROM room_djs WHERE uuid = ?`, uuid).rowsWritten > 0;
  }

  moveDjToBack(uuid: string) {
    this.sql.exec(
      `UPDATE room_djs SET seat = (SELECT max(seat) + 1 FROM room_djs) WHERE uuid = ?`,
      uuid,
    );
  }

  setNextSong(uuid: string, song: ClientSong | null): boolean {
    return (
      this.sql.exec(
        `UPDATE room_djs SET next_song = ? WHERE uuid = ?`,
        song ? JSON.stringify(song) : null,
        uuid,
      ).rowsWritten > 0
    );
  }

  clearDjs() {
    this.sql.exec(`DELETE FROM room_djs`);
    this.sql.exec(`DELETE FROM room_dj_stats`);
  }

  /** A DJ's stay on stage: their last action (AFK) and the songs started in it (songsPerDj). */
  djStats(uuid: string): { last_action: number; songs: number } | undefined {
    return this.sql
      .exec<{ last_action: number; songs: number }>(
        `SELECT last_action, songs FROM room_dj_stats WHERE uuid = ?`,
        uuid,
      )
      .toArray()[0];
  }

  /** A new stay on stage starts with no songs played. */
  startDjStay(uuid: string, now: number) {
    this.sql.exec(
      `INSERT INTO room_dj_stats (uuid, last_action, songs) VALUES (?, ?, 0) ON CONFLICT (uuid) DO UPDATE SET last_action = excluded.last_action, songs = 0`,
      uuid,
      now,
    );
  }

  /** Records a seated DJ's action; answers false when the user is not a DJ. */
  djActed(uuid: string, now: number): boolean {
    return (
      this.sql.exec(`UPDATE room_dj_stats SET last_action = ? WHERE uuid = ?`, now, uuid)
        .rowsWritten > 0
    );
  }

  countDjSong(uuid: string) {
    this.sql.exec(`UPDATE room_dj_stats SET songs = songs + 1 WHERE uuid = ?`, uuid);
  }

  // ---- now playing and votes ------------------------------------------------------------

  playing(): PlayingRow | undefined {
    return this.sql
      .exec<PlayingRow>(
        `SELECT play_id, dj_uuid, song, start_time, end_time, crate_id, crate_song_uuid FROM room_playing WHERE id = 1`,
      )
      .toArray()[0];
  }

  nowPlaying(): NowPlaying | null {
    const p = this.playing();
    return p
      ? {
          song: JSON.parse(p.song),
          startTime: p.start_time,
          endTime: p.end_time,
          djUuid: p.dj_uuid,
          playId: p.play_id,
        }
      : null;
  }

  setPlaying(p: PlayingRow) {
    this.sql.exec(
      `INSERT INTO room_playing (id, play_id, dj_uuid, song, start_time, end_time, crate_id, crate_song_uuid) VALUES (1, ?, ?, ?, ?, ?, ?, ?)`,
      p.play_id,
      p.dj_uuid,
      p.song,
      p.start_time,
      p.end_time,
      p.crate_id,
      p.crate_song_uuid,
    );
  }

  clearPlaying() {
    this.sql.exec(`DELETE FROM room_playing`);
  }

  /**
   * Sets one user's vote (undefined fields keep the earlier vote) and moves the play's
   * counters by the difference, in the same synchronous step: counts stay equal to the votes.
   */
  vote(playId: string, userUuid: string, like: boolean | undefined, star: boolean | undefined) {
    const before = this.userVote(playId, userUuid);
    const likeBefore = before?.vote_like ?? null;
    const starBefore = before?.star ?? 0;
    const likeAfter = like === undefined ? likeBefore : like ? 1 : 0;
    const starAfter = star === undefined ? starBefore : star ? 1 : 0;
    this.sql.exec(
      `INSERT INTO room_votes (play_id, user_uuid, vote_like, star) VALUES (?, ?, ?, ?)
       ON CONFLICT (play_id, user_uuid) DO UPDATE SET vote_like = excluded.vote_like, star = excluded.star`,
      playId,
      userUuid,
      likeAfter,
      starAfter,
    );
    this.sql.exec(
      `INSERT INTO room_vote_counts (play_id, likes, dislikes, stars) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (play_id) DO UPDATE SET likes = likes + ?2, dislikes = dislikes + ?3, stars = stars + ?4`,
      playId,
      Number(likeAfter === 1) - Number(likeBefore === 1),
      Number(likeAfter === 0) - Number(likeBefore === 0),
      starAfter - starBefore,
    );
  }

  userVote(
    playId: string,
    userUuid: string,
  ): { vote_like: number | null; star: number } | undefined {
    return this.sql
      .exec<{ vote_like: number | null; star: number }>(
        `SELECT vote_like, star FROM room_votes WHERE play_id = ? AND user_uuid = ?`,
        playId,
        userUuid,
      )
      .toArray()[0];
  }

  voteCounts(playId: string | null): VoteCounts {
    if (!playId) return { likes: 0, dislikes: 0, stars: 0 };
    const r = this.sql
      .exec<{ likes: number; dislikes: number; stars: number }>(
        `SELECT likes, dislikes, stars FROM room_vote_counts WHERE play_id = ?`,
        playId,
      )
      .toArray()[0];
    return r ?? { likes: 0, dislikes: 0, stars: 0 };
  }

  clearVotes() {
    this.sql.exec(`DELETE FROM room_votes`);
    this.sql.exec(`DELETE FROM room_vote_counts`);
  }

  // ---- plays (log and D1 outbox) ----------------------------------------------------------

  logPlay(p: Omit<PlayRow, "recorded">) {
    this.sql.exec(
      `INSERT OR IGNORE INTO room_plays (play_id, song_id, song, dj_uuid, played_at, vote_counts, rotate, crate_id, crate_song_uuid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      p.play_id,
      p.song_id,
      p.song,
      p.dj_uuid,
      p.played_at,
      p.vote_counts,
      p.rotate,
      p.crate_id,
      p.crate_song_uuid,
    );
  }

  unrecordedPlays(): PlayRow[] {
    return this.sql
      .exec<PlayRow>(`SELECT * FROM room_plays WHERE recorded = 0 ORDER BY played_at`)
      .toArray();
  }

  markRecorded(playId: string) {
    this.sql.exec(`UPDATE room_plays SET recorded = 1 WHERE play_id = ?`, playId);
  }

  /** Song ids played here since `since` (the repeat window); old recorded rows are pruned. */
  playedSince(since: number): Set<string> {
    this.sql.exec(
      `DELETE FROM room_plays WHERE recorded = 1 AND played_at < ?`,
      since - 24 * 3600_000,
    );
    return new Set(
      this.sql
        .exec<{ song_id: string }>(`SELECT song_id FROM room_plays WHERE played_at >= ?`, since)
        .toArray()
        .map((r) => r.song_id),
    );
  }

  // ---- schedule (one alarm serves all) ------------------------------------------------------

  schedule(key: string, due: number) {
    this.sql.exec(
      `INSERT INTO room_schedule (key, due) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET due = excluded.due`,
      key,
      due,
    );
  }

  unschedule(key: string) {
    this.sql.exec(`DELETE FROM room_schedule WHERE key = ?`, key);
  }

  unscheduleLike(prefix: string) {
    this.sql.exec(
      `DELETE FROM room_schedule WHERE key LIKE ? ESCAPE '\\'`,
      prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%",
    );
  }

  scheduled(): ScheduleRow[] {
    return this.sql
      .exec<ScheduleRow>(`SELECT key, due FROM room_schedule ORDER BY due, key`)
      .toArray();
  }

  // ---- seq, published state, pending changes ----------------------------------------------

  seq(): number {
    return this.sql.exec<{ seq: number }>(`SELECT seq FROM room_meta WHERE id = 1`).one().seq;
  }

  nextSeq(): number {
    return this.sql
      .exec<{ seq: number }>(`UPDATE room_meta SET seq = seq + 1 WHERE id = 1 RETURNING seq`)
      .one().seq;
  }

  /** Marks state keys changed; the first change of a batch names its frame. */
  markPending(keys: readonly string[], name: StatefulMessageName, now: number) {
    for (const k of keys)
      this.sql.exec(
        `INSERT OR IGNORE INTO room_pending (key, name, at) VALUES (?, ?, ?)`,
        k,
        name,
        now,
      );
  }

  /** The pending keys and the name of the earliest change, or null if nothing is pending. */
  pending(): { keys: string[]; name: StatefulMessageName } | null {
    const rows = this.sql
      .exec<{ key: string; name: StatefulMessageName }>(
        `SELECT key, name FROM room_pending ORDER BY at, rowid`,
      )
      .toArray();
    return rows.length ? { keys: rows.map((r) => r.key), name: rows[0].name } : null;
  }

  clearPending() {
    this.sql.exec(`DELETE FROM room_pending`);
  }
}

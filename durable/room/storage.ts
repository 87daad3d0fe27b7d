/**
 * The Room object's SQLite tables and every read and write of them. Nothing else in the
 * room touches `ctx.storage.sql`, so the tables' rules live here.
 *
 * Invariants:
 * - Everything that must survive eviction is here: settings, roles, present users (with
 *   their grace deadline), DJ seats, what is playing, votes, recent plays, the schedule,
 *   the seq and the pending change set (frame-storage.ts), the published state
 *   (published-storage.ts), the votes (vote-storage.ts), the chat history
 *   (chat-storage.ts), the delivered consumables (consumable-storage.ts) and the owed side
 *   effects (effects.ts), each in a module of its own that only RoomStorage creates.
 * - What the hot path (a vote, a chat line) reads on every action is also kept in memory:
 *   the settings, the play on air, the seated DJs' uuids and each user's last write of
 *   last_active. Each copy is dropped or moved by the only methods here that write its
 *   rows, none of which runs inside a transaction that could roll back.
 * - `room_djs.seat` orders the stage; a DJ moved to the back gets max(seat) + 1, so seats
 *   never repeat.
 * - Votes and their counters are in vote-storage.ts (one read and two writes a vote).
 * - `room_plays` is the play log and the D1 outbox in one: a play is written here (and so
 *   counts for the repeat window) the moment it stops; `recorded` turns 1 once D1 holds it.
 * - All calls are synchronous (SQLite in a Durable Object is), so a caller that reads,
 *   decides and writes without an `await` in between is never interleaved.
 */
import { roomSettingsSchema, type RoomRoleName, type RoomSettings } from "../../shared/rooms";
import { ChatStorage } from "./chat-storage";
import { ConsumableStorage } from "./consumable-storage";
import { EffectStorage } from "./effects";
import { FrameStorage } from "./frame-storage";
import { VoteStorage } from "./vote-storage";
import { WaitlistStorage } from "./waitlist-storage";
import { PublishedStorage } from "./published-storage";
import type { ClientSong, NowPlaying, TokenRole, UserProfile } from "../../shared/protocol";

export const GRACE_MS = 30_000;
export const ACTIVE_WINDOW_MS = 10 * 60_000;
/** How long the active-listener count (vibe meter, auto-skip) may be reused before a recount. */
export const ACTIVE_CACHE_MS = 5_000;
/**
 * last_active is written at most this often per user: a vote storm costs no row write per
 * vote, and the active window (10 minutes) is counted at most this late at its edge.
 */
export const TOUCH_MS = 5_000;

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
  /** The seq and the changes the next frame sends (room_meta, room_pending). */
  readonly frames: FrameStorage;
  /** Votes and their counts per play (room_votes, room_vote_counts). */
  readonly votes: VoteStorage;
  /** The DJ waiting list (room_waitlist, waitlist-storage.ts). */
  readonly waitlist: WaitlistStorage;
  /** The cached active-listener count (activeCount) and when it was counted. */
  #active: { at: number; n: number } | null = null;
  /**
   * Read on every vote and chat line, written seldom: kept parsed in memory, dropped by the
   * only writers here (never written inside a transaction that could roll back).
   */
  #settings: RoomSettings | null = null;
  /** The room_playing row (null: none; undefined: not read since the last write). */
  #playing: PlayingRow | null | undefined = undefined;
  /** The uuids with a room_dj_stats row (the seated DJs' stays), or null until read. */
  #staying: Set<string> | null = null;
  /** last_active as written, per present user: touch writes it at most every TOUCH_MS. */
  #touched = new Map<string, number>();

  constructor(
    private readonly sql: Sql,
    private readonly roomName: () => string,
  ) {
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
    // The lists name the first arrivals (view.ts `shown`): read in this order, never sorted.
    sql.exec(`CREATE INDEX IF NOT EXISTS room_users_arrival ON room_users (joined_at, uuid)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_djs (uuid TEXT PRIMARY KEY, seat INTEGER NOT NULL, next_song TEXT)`,
    );
    sql.exec(`CREATE TABLE IF NOT EXISTS room_playing (id INTEGER PRIMARY KEY CHECK (id = 1), play_id TEXT NOT NULL, dj_uuid TEXT NOT NULL,
      song TEXT NOT NULL, start_time INTEGER NOT NULL, end_time INTEGER NOT NULL, crate_id INTEGER NOT NULL, crate_song_uuid TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_plays (play_id TEXT PRIMARY KEY, song_id TEXT NOT NULL, song TEXT NOT NULL, dj_uuid TEXT NOT NULL,
      played_at INTEGER NOT NULL, vote_counts TEXT NOT NULL, rotate INTEGER NOT NULL, crate_id INTEGER NOT NULL, crate_song_uuid TEXT NOT NULL,
      recorded INTEGER NOT NULL DEFAULT 0)`);
    sql.exec(`CREATE INDEX IF NOT EXISTS room_plays_song ON room_plays (song_id, played_at)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_schedule (key TEXT PRIMARY KEY, due INTEGER NOT NULL)`,
    );
    sql.exec(`CREATE INDEX IF NOT EXISTS room_schedule_due ON room_schedule (due)`);
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
    this.frames = new FrameStorage(sql);
    this.votes = new VoteStorage(sql);
    this.waitlist = new WaitlistStorage(sql);
  }

  // ---- settings and roles ---------------------------------------------------------------

  /** The stored settings, or the defaults (slug = the object's name) until the room-service pushes some. */
  settings(): RoomSettings {
    return (this.#settings ??= this.#readSettings());
  }

  #readSettings(): RoomSettings {
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
    this.#settings = null;
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

  /**
   * The present users `always` names plus the first `limit` arrivals, in (joined_at, uuid)
   * order (view.ts `shown`): two index reads, whatever the crowd.
   */
  shownUsers(always: string[], limit: number): UserRow[] {
    const rows = this.sql
      .exec<UserRow>(
        `SELECT * FROM room_users WHERE uuid IN (SELECT value FROM json_each(?))
         UNION SELECT * FROM (SELECT * FROM room_users ORDER BY joined_at, uuid LIMIT ?)
         ORDER BY joined_at, uuid`,
        JSON.stringify(always),
        limit,
      )
      .toArray();
    return rows;
  }

  /** The present users among `uuids`, in (joined_at, uuid) order. */
  usersIn(uuids: string[]): UserRow[] {
    return this.sql
      .exec<UserRow>(
        `SELECT * FROM room_users WHERE uuid IN (SELECT value FROM json_each(?)) ORDER BY joined_at, uuid`,
        JSON.stringify(uuids),
      )
      .toArray();
  }

  /** How many are present without guests (`users`), and not in a seat of `seated` (`audience`). */
  presentCounts(seated: string[]): { users: number; audience: number } {
    return this.sql
      .exec<{ users: number; audience: number }>(
        `SELECT COALESCE(SUM(guest = 0), 0) AS users,
           COUNT(*) - (SELECT COUNT(*) FROM room_users WHERE uuid IN (SELECT value FROM json_each(?))) AS audience
         FROM room_users`,
        JSON.stringify(seated),
      )
      .one();
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
    // Leaving the room leaves the waiting list (a kick, a ban, the grace's end).
    this.waitlist.remove(uuid);
    this.#touched.delete(uuid);
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

  /** The stored profiles of `uuids` (those that have one). */
  profilesOf(uuids: string[]): Map<string, UserProfile> {
    return new Map(
      this.sql
        .exec<{ uuid: string; json: string }>(
          `SELECT uuid, json FROM room_profiles WHERE uuid IN (SELECT value FROM json_each(?))`,
          JSON.stringify(uuids),
        )
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
    const written = this.#touched.get(uuid);
    if (written !== undefined && now >= written && now - written < TOUCH_MS) return false;
    // One statement when the user wakes (their first action here), two otherwise.
    const woke =
      this.sql.exec(
        `UPDATE room_users SET last_active = ? WHERE uuid = ? AND last_active <= ?`,
        now,
        uuid,
        now - ACTIVE_WINDOW_MS,
      ).rowsWritten > 0;
    if (
      !woke &&
      !this.sql.exec(`UPDATE room_users SET last_active = ? WHERE uuid = ?`, now, uuid).rowsWritten
    )
      return false; // not present
    this.#touched.set(uuid, now);
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
    this.#staying?.delete(uuid);
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
    this.#staying = new Set();
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
    this.#staying?.add(uuid);
  }

  /** Records a seated DJ's action; answers false when the user is not a DJ (no row read). */
  djActed(uuid: string, now: number): boolean {
    this.#staying ??= new Set(
      this.sql
        .exec<{ uuid: string }>(`SELECT uuid FROM room_dj_stats`)
        .toArray()
        .map((r) => r.uuid),
    );
    if (!this.#staying.has(uuid)) return false;
    return (
      this.sql.exec(`UPDATE room_dj_stats SET last_action = ? WHERE uuid = ?`, now, uuid)
        .rowsWritten > 0
    );
  }

  countDjSong(uuid: string) {
    this.sql.exec(`UPDATE room_dj_stats SET songs = songs + 1 WHERE uuid = ?`, uuid);
  }

  // ---- now playing ------------------------------------------------------------

  playing(): PlayingRow | undefined {
    if (this.#playing !== undefined) return this.#playing ?? undefined;
    return (this.#playing = this.#readPlaying() ?? null) ?? undefined;
  }

  #readPlaying(): PlayingRow | undefined {
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
    this.#playing = undefined;
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
    this.#playing = undefined;
    this.sql.exec(`DELETE FROM room_playing`);
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

  /** The earliest entry's due time (the alarm's), or null: one index step, however long the schedule. */
  firstDue(): number | null {
    return this.sql.exec<{ due: number | null }>(`SELECT min(due) AS due FROM room_schedule`).one()
      .due;
  }

  /** The entries due by `now`, earliest first. */
  dueBy(now: number): ScheduleRow[] {
    return this.sql
      .exec<ScheduleRow>(`SELECT key, due FROM room_schedule WHERE due <= ? ORDER BY due, key`, now)
      .toArray();
  }
}

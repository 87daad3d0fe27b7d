/**
 * The room's outbox of side effects outside the object (a vote's points on the points
 * queue, a star's song in the voter's likes crate, a guest's free plays, notifications, chat
 * audit events), in SQLite (`room_effects`). Plays have
 * their own outbox (`room_plays`, playback.ts); both are retried by the `outbox` entry.
 *
 * Invariants:
 * - An effect is written in the same synchronous step as the vote that causes it, so an
 *   eviction after the vote can lose neither; the boot drains what is still owed.
 * - Each row has an idempotency key, and each receiver applies a key once (the points
 *   boards drop an event id they have seen; the likes crate holds a song once), so a
 *   retry after an attempt whose answer was lost changes nothing twice.
 * - A row is deleted once its effect is done; a failed one stays and is retried from the
 *   schedule, in the order written, until done or MAX_ATTEMPTS (a poison row is dropped
 *   and logged rather than retried forever).
 * - One drain at a time (a promise chain): two drains never send one row at once. At most
 *   one drain waits behind the running one, and it reads the outbox when it starts, so every
 *   row written before a `drain()` call is sent by a drain that starts after it: a vote
 *   storm queues one more drain, not one per vote.
 * - Consecutive points rows leave in one queue batch (up to POINTS_BATCH); the batch is done
 *   or failed as a whole (the boards drop an event id they have seen, so a batch sent
 *   again after a lost answer counts each event once).
 */
import { assertNever } from "../../shared/protocol";
import type { Env } from "../../workers/env";
import {
  POINTS_BATCH,
  pointsMessage,
  sendPointsBatch,
  type PointsMessage,
} from "../../workers/queues/points";
import type { NotificationMessage } from "../../workers/queues/notifications";
import type { AuditMessage } from "../../workers/queues/audit";
import { recordGuestPlays } from "../../workers/room-service/guest-plays-repo";
import { starToLikes } from "./library";

export type Effect =
  | { kind: "points"; message: PointsMessage }
  | { kind: "star"; userUuid: string; songId: string }
  /** Guests who heard a play, against their free-play limit (free-plays.ts). */
  | { kind: "guestPlays"; playId: string; guests: string[] }
  /** A notification for the notifications queue (a DJ's fans, a mention, "you're up next"). */
  | { kind: "notify"; message: NotificationMessage }
  /** An audit event (a chat line sent, edited or deleted) for the audit queue. */
  | { kind: "audit"; message: AuditMessage };

/** About 25 minutes of retries at EFFECT_RETRY_MS. */
export const MAX_ATTEMPTS = 50;
export const EFFECT_RETRY_MS = 30_000;

export class EffectStorage {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_effects (seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, json TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0)`,
    );
  }

  /** Owes `effect` under `key`; one already owed under that key stays as it is. */
  add(key: string, effect: Effect): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO room_effects (key, json) VALUES (?, ?)`,
      key,
      JSON.stringify(effect),
    );
  }

  /** Everything still owed, in the order it was written. */
  pending(): { key: string; effect: Effect; attempts: number }[] {
    return this.sql
      .exec<{ key: string; json: string; attempts: number }>(
        `SELECT key, json, attempts FROM room_effects ORDER BY seq`,
      )
      .toArray()
      .map((r) => ({ key: r.key, effect: JSON.parse(r.json) as Effect, attempts: r.attempts }));
  }

  done(...keys: string[]): void {
    // One statement for a whole batch (json_each: no limit on bound parameters).
    this.sql.exec(
      `DELETE FROM room_effects WHERE key IN (SELECT value FROM json_each(?))`,
      JSON.stringify(keys),
    );
  }

  failed(key: string): void {
    this.sql.exec(`UPDATE room_effects SET attempts = attempts + 1 WHERE key = ?`, key);
  }
}

export class Effects {
  #chain: Promise<void> = Promise.resolve();
  /** A drain is queued behind the chain and has not read the outbox yet. */
  #queued = false;

  constructor(
    private readonly env: Env,
    private readonly storage: EffectStorage,
    /** Schedules the `outbox` entry at `due` (and re-arms the alarm). */
    private readonly retryAt: (due: number) => void,
  ) {}

  /** Owes `effect`: call it in the synchronous step that causes it, then `drain`. */
  add(key: string, effect: Effect): void {
    this.storage.add(key, effect);
  }

  /** Resolves when every drain started so far has run (the alarm handler waits on it). */
  idle(): Promise<void> {
    return this.#chain;
  }

  /** Runs every owed effect once, in order; whatever fails is retried from the schedule. */
  drain(): Promise<void> {
    if (this.#queued) return this.#chain;
    this.#queued = true;
    this.#chain = this.#chain
      .then(() => {
        this.#queued = false;
        return this.#drain();
      })
      .catch((e) => console.error("room: effects drain failed", e));
    return this.#chain;
  }

  async #drain() {
    let retry = false;
    const rows = this.storage.pending().filter(({ key, effect }) => {
      // A row that can never be sent must not fail the batch it would share: dropped alone.
      if (effect.kind !== "points" || pointsMessage.safeParse(effect.message).success) return true;
      console.error(`room: effect ${key} is not a valid points event; dropped`);
      this.storage.done(key);
      return false;
    });
    for (let i = 0; i < rows.length;) {
      // A run of points rows is one batch; any other effect is a batch of one.
      let j = i + 1;
      if (rows[i].effect.kind === "points")
        while (j < rows.length && j - i < POINTS_BATCH && rows[j].effect.kind === "points") j++;
      const batch = rows.slice(i, j);
      i = j;
      try {
        await this.#run(batch.map((r) => r.effect));
        this.storage.done(...batch.map((r) => r.key));
      } catch (e) {
        for (const { key, attempts } of batch)
          if (attempts + 1 >= MAX_ATTEMPTS) {
            console.error(`room: effect ${key} failed ${MAX_ATTEMPTS} times; dropped`, e);
            this.storage.done(key);
          } else {
            console.error(`room: effect ${key} failed; retrying`, e);
            this.storage.failed(key);
            retry = true;
          }
      }
    }
    if (retry) this.retryAt(Date.now() + EFFECT_RETRY_MS);
  }

  /** One batch: points rows only, or a single effect of another kind. */
  #run(batch: Effect[]): Promise<void> {
    const effect = batch[0];
    switch (effect.kind) {
      case "points":
        return sendPointsBatch(
          this.env,
          batch.flatMap((e) => (e.kind === "points" ? [e.message] : [])),
        );
      case "star":
        return starToLikes(this.env, effect.userUuid, effect.songId);
      case "guestPlays":
        return recordGuestPlays(this.env, effect.playId, effect.guests);
      case "notify":
        return this.env.NOTIFICATIONS.send(effect.message).then(() => undefined);
      case "audit":
        return this.env.AUDIT.send(effect.message).then(() => undefined);
      default:
        return assertNever(effect);
    }
  }
}

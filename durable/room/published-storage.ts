/**
 * The published room state (what every client holds at the current seq), stored per
 * entry so that no stored value grows with the crowd, and held in memory so that a tick
 * reads nothing from SQLite. Only RoomStorage creates it.
 *
 * Invariants:
 * - No stored value grows with the number of people: a list of entries with an identity
 *   (`id`, else `uuid`: users, DJs, chat lines) is a row per entry, ordered by `ord`; an
 *   object whose values are all objects (allUserData) is a row per property, ordered the
 *   same way; anything else (counts, nowPlaying, settings) is one row. A 20,000-user room's
 *   largest row is one user's entry, not the 4 MB list (the storage limit is 2 MB a value).
 * - A change writes only the rows of the entries that changed (a join: one row per list),
 *   and `ord` of an entry that stays in order is kept, so a join or a leave is O(1) writes.
 * - Memory and SQLite hold the same state: `set` is called inside the publisher's
 *   transaction, and if that transaction fails the publisher calls `load()` to drop what
 *   memory took ahead of SQLite.
 */
type Sql = SqlStorage;
type Kind = "list:id" | "list:uuid" | "map" | "value";
type Entry = { ord: number; json: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** How a value is stored: per entry when it is a collection of identified objects, else whole. */
function kindOf(value: unknown): Kind {
  if (Array.isArray(value)) {
    for (const field of ["id", "uuid"] as const) {
      const ids = value.map((v) => (isObject(v) ? v[field] : undefined));
      if (ids.every((id) => typeof id === "string") && new Set(ids).size === ids.length)
        return field === "id" ? "list:id" : "list:uuid";
    }
    return "value";
  }
  return isObject(value) && Object.values(value).every(isObject) ? "map" : "value";
}

/** The (id, entry) pairs of a collection, in order. */
function entriesOf(kind: Kind, value: unknown): [string, unknown][] {
  if (kind === "map") return Object.entries(value as Record<string, unknown>);
  const field = kind === "list:id" ? "id" : "uuid";
  return (value as Record<string, unknown>[]).map((v) => [v[field] as string, v]);
}

/**
 * Orders for a new sequence of ids: an id keeps its old order while that keeps the sequence
 * increasing (so unchanged entries are not rewritten); the others get values between their
 * kept neighbours. When a gap is too narrow for floating point, everything is renumbered.
 */
export function assignOrds(prev: ReadonlyMap<string, Entry>, ids: readonly string[]): number[] {
  const ords: (number | null)[] = [];
  let last = -Infinity;
  for (const id of ids) {
    const o = prev.get(id)?.ord;
    if (o !== undefined && o > last) ords.push((last = o));
    else ords.push(null);
  }
  for (let i = 0; i < ords.length;) {
    if (ords[i] !== null) {
      i++;
      continue;
    }
    let j = i;
    while (j < ords.length && ords[j] === null) j++;
    const lo = i > 0 ? ords[i - 1] : null;
    const hi = j < ords.length ? ords[j] : null;
    const count = j - i;
    for (let k = 0; k < count; k++) {
      if (lo === null && hi === null) ords[i + k] = k + 1;
      else if (lo === null) ords[i + k] = hi! - (count - k);
      else if (hi === null) ords[i + k] = lo + k + 1;
      else {
        const step = (hi - lo) / (count + 1);
        if (step < 1e-6) return ids.map((_, n) => n + 1);
        ords[i + k] = lo + step * (k + 1);
      }
    }
    i = j;
  }
  return ords as number[];
}

export class PublishedStorage {
  #values = new Map<string, unknown>();
  #kinds = new Map<string, Kind>();
  #entries = new Map<string, Map<string, Entry>>();

  constructor(private readonly sql: Sql) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_pub_keys (key TEXT PRIMARY KEY, kind TEXT NOT NULL, json TEXT)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_pub_entries (key TEXT NOT NULL, id TEXT NOT NULL, ord REAL NOT NULL, json TEXT NOT NULL, PRIMARY KEY (key, id))`,
    );
    this.load();
    // Objects from before per-entry storage kept each key whole in room_published: moved
    // once, so clients connected across the upgrade keep their seq and state.
    const old = sql
      .exec<{ n: number }>(
        `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'room_published'`,
      )
      .one().n;
    if (old) {
      for (const r of sql
        .exec<{ key: string; json: string }>(`SELECT key, json FROM room_published`)
        .toArray())
        if (!this.#values.has(r.key)) this.set(r.key, JSON.parse(r.json));
      sql.exec(`DROP TABLE room_published`);
    }
  }

  /** Rebuilds memory from SQLite (boot, or after a failed transaction). */
  load() {
    this.#values.clear();
    this.#kinds.clear();
    this.#entries.clear();
    const keys = this.sql
      .exec<{ key: string; kind: Kind; json: string | null }>(
        `SELECT key, kind, json FROM room_pub_keys`,
      )
      .toArray();
    for (const k of keys) {
      this.#kinds.set(k.key, k.kind);
      if (k.kind === "value") this.#values.set(k.key, JSON.parse(k.json!));
      else {
        this.#entries.set(k.key, new Map());
        this.#values.set(k.key, k.kind === "map" ? {} : []);
      }
    }
    for (const r of this.sql.exec<{ key: string; id: string; ord: number; json: string }>(
      `SELECT key, id, ord, json FROM room_pub_entries ORDER BY key, ord`,
    )) {
      const kind = this.#kinds.get(r.key);
      if (!kind || kind === "value") continue;
      this.#entries.get(r.key)!.set(r.id, { ord: r.ord, json: r.json });
      const v = JSON.parse(r.json) as unknown;
      if (kind === "map") (this.#values.get(r.key) as Record<string, unknown>)[r.id] = v;
      else (this.#values.get(r.key) as unknown[]).push(v);
    }
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  /** The value clients hold for `key` (do not mutate: it is the stored copy). */
  get(key: string): unknown {
    return this.#values.get(key);
  }

  /** Replaces `key`'s value, writing only the rows that changed. */
  set(key: string, value: unknown) {
    const kind = kindOf(value);
    if (this.#kinds.get(key) !== kind) {
      this.sql.exec(`DELETE FROM room_pub_entries WHERE key = ?`, key);
      this.#entries.delete(key);
    }
    this.sql.exec(
      `INSERT INTO room_pub_keys (key, kind, json) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, json = excluded.json`,
      key,
      kind,
      kind === "value" ? JSON.stringify(value) : null,
    );
    this.#kinds.set(key, kind);
    this.#values.set(key, value);
    if (kind === "value") return;
    const prev = this.#entries.get(key) ?? new Map<string, Entry>();
    const pairs = entriesOf(kind, value);
    const ords = assignOrds(
      prev,
      pairs.map(([id]) => id),
    );
    const next = new Map<string, Entry>();
    pairs.forEach(([id, v], i) => {
      const entry = { ord: ords[i], json: JSON.stringify(v) };
      next.set(id, entry);
      const old = prev.get(id);
      if (old && old.ord === entry.ord && old.json === entry.json) return;
      this.sql.exec(
        `INSERT INTO room_pub_entries (key, id, ord, json) VALUES (?, ?, ?, ?) ON CONFLICT (key, id) DO UPDATE SET ord = excluded.ord, json = excluded.json`,
        key,
        id,
        entry.ord,
        entry.json,
      );
    });
    for (const id of prev.keys())
      if (!next.has(id))
        this.sql.exec(`DELETE FROM room_pub_entries WHERE key = ? AND id = ?`, key, id);
    this.#entries.set(key, next);
  }
}

/**
 * RFC 6902 patch generation: the operations that turn one published room state into the
 * next. shared/json-patch.ts applies them (browser and tests); this module only writes them.
 *
 * Invariants:
 * - `applyPatch(a, diff("", a, b))` deep-equals `b` for any JSON values a and b.
 * - Lists of objects with a `uuid` (users, DJs, roles keyed by user) are diffed by identity:
 *   removals first, from the end, each guarded by a `test` of the uuid (a client whose list
 *   has drifted fails the patch and resyncs instead of removing the wrong entry); then
 *   moves and insertions in ascending target order; then per-entry field changes. A DJ
 *   rotating to the back is a `move`, not a rewrite of the whole list.
 * - Any other array that changed is replaced whole (they are small: thumbnails, pins).
 */
import { jsonEqual, type JsonPatchOp, type JsonValue } from "../../shared/json-patch";

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
const isObject = (v: JsonValue): v is { [k: string]: JsonValue } =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const uuidOf = (v: JsonValue): string | undefined =>
  isObject(v) && typeof v.uuid === "string" ? v.uuid : undefined;
const keyedByUuid = (list: JsonValue[]) =>
  list.every((v) => uuidOf(v) !== undefined) && new Set(list.map(uuidOf)).size === list.length;

/** Operations turning `a` into `b` at `path` ("" is the whole document). */
export function diff(path: string, a: JsonValue, b: JsonValue): JsonPatchOp[] {
  if (jsonEqual(a, b)) return [];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (keyedByUuid(a) && keyedByUuid(b)) return diffKeyedList(path, a, b);
    return [{ op: "replace", path, value: b }];
  }
  if (isObject(a) && isObject(b)) {
    const ops: JsonPatchOp[] = [];
    for (const k of Object.keys(a))
      if (!(k in b)) ops.push({ op: "remove", path: `${path}/${escape(k)}` });
    for (const k of Object.keys(b)) {
      const p = `${path}/${escape(k)}`;
      if (!Object.prototype.hasOwnProperty.call(a, k))
        ops.push({ op: "add", path: p, value: b[k] });
      else ops.push(...diff(p, a[k], b[k]));
    }
    return ops;
  }
  return [{ op: "replace", path, value: b }];
}

function diffKeyedList(path: string, a: JsonValue[], b: JsonValue[]): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  const keep = new Set(b.map(uuidOf));
  const work = [...a];
  for (let i = work.length - 1; i >= 0; i--) {
    const id = uuidOf(work[i])!;
    if (keep.has(id)) continue;
    ops.push(
      { op: "test", path: `${path}/${i}/uuid`, value: id },
      { op: "remove", path: `${path}/${i}` },
    );
    work.splice(i, 1);
  }
  const fieldOps: JsonPatchOp[] = [];
  b.forEach((want, i) => {
    const id = uuidOf(want)!;
    if (uuidOf(work[i]) !== id) {
      const j = work.findIndex((v, k) => k > i && uuidOf(v) === id);
      if (j === -1) {
        ops.push({ op: "add", path: `${path}/${i}`, value: want });
        work.splice(i, 0, want);
        return;
      }
      ops.push({ op: "move", from: `${path}/${j}`, path: `${path}/${i}` });
      work.splice(i, 0, work.splice(j, 1)[0]);
    }
    // Field changes are written after all moves, at the entry's final index.
    fieldOps.push(...diff(`${path}/${i}`, work[i], want));
  });
  return [...ops, ...fieldOps];
}

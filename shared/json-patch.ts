/**
 * A small RFC 6902 (JSON Patch) applier over RFC 6901 (JSON Pointer) paths, shared by the
 * browser (which applies the room's `statePatch` frames) and the tests.
 *
 * Invariants:
 * - `applyPatch` never mutates its input: it works on a copy and returns the new document.
 * - It is all or nothing: if any operation fails (a missing path, a bad array index, a
 *   failed `test`), it throws a `JsonPatchError` and the caller keeps its old document.
 *   The room protocol relies on this: a client whose patch fails asks for the full state.
 * - Keys are set as own properties (`Object.defineProperty`), so a `__proto__` key in a
 *   patch is data, never a prototype change.
 */

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonPatchOp =
  | { op: "add"; path: string; value: JsonValue }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: JsonValue }
  | { op: "move"; from: string; path: string }
  | { op: "copy"; from: string; path: string }
  | { op: "test"; path: string; value: JsonValue };

/** Thrown when a patch cannot be applied; `index` is the failing operation's position. */
export class JsonPatchError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(`operation ${index}: ${message}`);
    this.name = "JsonPatchError";
  }
}

type Container = JsonValue[] | { [key: string]: JsonValue };

/** Splits a JSON Pointer into unescaped reference tokens ("" is the whole document). */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`invalid JSON pointer "${pointer}"`);
  // Order matters (RFC 6901 section 4): ~1 first, then ~0, so "~01" becomes "~1".
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isContainer = (v: JsonValue | undefined): v is Container =>
  typeof v === "object" && v !== null;
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** An array index per RFC 6901: digits without leading zeros, below `limit` (inclusive if `allowEnd`). */
function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const i = Number(token);
  if (i > length || (i === length && !allowEnd))
    throw new Error(`index ${i} is out of bounds (length ${length})`);
  return i;
}

/** The value a pointer names; throws if any step is missing. */
function get(doc: JsonValue, tokens: string[]): JsonValue {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else if (isContainer(cur) && hasOwn(cur, t)) cur = cur[t];
    else throw new Error(`path "/${tokens.join("/")}" does not exist`);
  }
  return cur;
}

/** The container holding the last token; it must exist (RFC 6902 section 4.1). */
function parentOf(doc: JsonValue, tokens: string[]): Container {
  const parent = get(doc, tokens.slice(0, -1));
  if (!isContainer(parent))
    throw new Error(`parent of "/${tokens.join("/")}" is not an object or array`);
  return parent;
}

function setOwn(obj: { [key: string]: JsonValue }, key: string, value: JsonValue) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

function add(doc: JsonValue, tokens: string[], value: JsonValue): JsonValue {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : arrayIndex(key, parent.length, true);
    parent.splice(i, 0, value);
  } else setOwn(parent, key, value);
  return doc;
}

function remove(doc: JsonValue, tokens: string[]): JsonValue {
  if (tokens.length === 0) throw new Error("cannot remove the whole document");
  const parent = parentOf(doc, tokens);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false), 1);
  else if (hasOwn(parent, key)) delete parent[key];
  else throw new Error(`path "/${tokens.join("/")}" does not exist`);
  return doc;
}

/** Like add, but the target must already exist and keeps its place (object key order too). */
function replace(doc: JsonValue, tokens: string[], value: JsonValue): JsonValue {
  if (tokens.length === 0) return value;
  get(doc, tokens);
  const parent = parentOf(doc, tokens);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false)] = value;
  else setOwn(parent, key, value);
  return doc;
}

/** Structural equality as RFC 6902 section 4.6 defines it (object key order ignored). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((v, i) => jsonEqual(v, b[i]))
    );
  }
  if (!isContainer(a) || !isContainer(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length && ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]))
  );
}

function applyOne(doc: JsonValue, op: JsonPatchOp): JsonValue {
  const tokens = parsePointer(op.path);
  switch (op.op) {
    case "add":
      return add(doc, tokens, structuredClone(op.value));
    case "remove":
      return remove(doc, tokens);
    case "replace":
      return replace(doc, tokens, structuredClone(op.value));
    case "move": {
      const from = parsePointer(op.from);
      if (op.path.startsWith(op.from + "/"))
        throw new Error(`cannot move "${op.from}" into its own child`);
      const value = get(doc, from);
      return add(remove(doc, from), tokens, value);
    }
    case "copy":
      return add(doc, tokens, structuredClone(get(doc, parsePointer(op.from))));
    case "test":
      if (!jsonEqual(get(doc, tokens), op.value)) throw new Error(`test failed at "${op.path}"`);
      return doc;
    default:
      return assertNever(op);
  }
}

/**
 * Applies `patch` to a copy of `doc` and returns the result; throws `JsonPatchError` (and
 * changes nothing) if any operation fails.
 *
 * @example
 * applyPatch({ users: [] }, [{ op: "add", path: "/users/-", value: "a" }]) // { users: ["a"] }
 */
export function applyPatch<T>(doc: T, patch: readonly JsonPatchOp[]): T {
  let out = structuredClone(doc) as JsonValue;
  patch.forEach((op, i) => {
    try {
      out = applyOne(out, op);
    } catch (e) {
      throw new JsonPatchError(e instanceof Error ? e.message : String(e), i);
    }
  });
  return out as T;
}

/** Compile-time exhaustiveness: a new variant that is not handled fails the type check. */
export function assertNever(x: never): never {
  throw new Error(`unexpected value ${JSON.stringify(x)}`);
}

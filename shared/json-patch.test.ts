import { describe, expect, it } from "vitest";
import {
  applyPatch,
  JsonPatchError,
  parsePointer,
  type JsonPatchOp,
  type JsonValue,
} from "./json-patch";

// Cases from RFC 6902 appendix A, then the failures the room protocol depends on.
describe("applyPatch (RFC 6902)", () => {
  const cases: [string, JsonValue, JsonPatchOp[], JsonValue][] = [
    [
      "adds an object member",
      { foo: "bar" },
      [{ op: "add", path: "/baz", value: "qux" }],
      { foo: "bar", baz: "qux" },
    ],
    [
      "inserts into an array",
      { foo: ["bar", "baz"] },
      [{ op: "add", path: "/foo/1", value: "qux" }],
      { foo: ["bar", "qux", "baz"] },
    ],
    ["appends with -", { foo: [1] }, [{ op: "add", path: "/foo/-", value: 2 }], { foo: [1, 2] }],
    [
      "adds at the array end index",
      { foo: [1] },
      [{ op: "add", path: "/foo/1", value: 2 }],
      { foo: [1, 2] },
    ],
    [
      "removes an object member",
      { baz: "qux", foo: "bar" },
      [{ op: "remove", path: "/baz" }],
      { foo: "bar" },
    ],
    [
      "removes an array element",
      { foo: ["bar", "qux", "baz"] },
      [{ op: "remove", path: "/foo/1" }],
      { foo: ["bar", "baz"] },
    ],
    [
      "replaces a value",
      { baz: "qux", foo: "bar" },
      [{ op: "replace", path: "/baz", value: "boo" }],
      { baz: "boo", foo: "bar" },
    ],
    ["replaces the whole document", { a: 1 }, [{ op: "replace", path: "", value: [1] }], [1]],
    [
      "moves a value",
      { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
      [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
      { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
    ],
    [
      "moves an array element",
      { foo: ["all", "grass", "cows", "eat"] },
      [{ op: "move", from: "/foo/1", path: "/foo/3" }],
      { foo: ["all", "cows", "eat", "grass"] },
    ],
    [
      "copies a value",
      { a: { b: [1] } },
      [{ op: "copy", from: "/a", path: "/c" }],
      { a: { b: [1] }, c: { b: [1] } },
    ],
    [
      "passes a test that ignores key order",
      { a: { x: 1, y: [2] } },
      [{ op: "test", path: "/a", value: { y: [2], x: 1 } }],
      { a: { x: 1, y: [2] } },
    ],
    [
      "unescapes ~1 and ~0 in pointers",
      { "a/b": 1, "m~n": 2 },
      [
        { op: "replace", path: "/a~1b", value: 3 },
        { op: "remove", path: "/m~0n" },
      ],
      { "a/b": 3 },
    ],
    [
      "adds a nested array member",
      { q: { bar: 2 } },
      [{ op: "add", path: "/q/baz", value: ["x"] }],
      { q: { bar: 2, baz: ["x"] } },
    ],
  ];
  it.each(cases)("%s", (_name, doc, patch, expected) => {
    expect(applyPatch(doc, patch)).toEqual(expected);
  });

  it("does not mutate its input, and later edits to the result do not reach the patch values", () => {
    const doc = { list: [{ id: 1 }] };
    const value = { id: 2 };
    const out = applyPatch(doc, [{ op: "add", path: "/list/-", value }]);
    expect(doc).toEqual({ list: [{ id: 1 }] });
    (out.list[1] as { id: number }).id = 9;
    expect(value.id).toBe(2);
  });

  const failures: [string, JsonValue, JsonPatchOp[]][] = [
    ["a failed test", { a: 1 }, [{ op: "test", path: "/a", value: 2 }]],
    ["a test on a missing path", { a: 1 }, [{ op: "test", path: "/b", value: 1 }]],
    ["removing a missing member", { a: 1 }, [{ op: "remove", path: "/b" }]],
    ["replacing a missing member", { a: 1 }, [{ op: "replace", path: "/b", value: 1 }]],
    ["adding under a missing parent", { a: 1 }, [{ op: "add", path: "/x/y", value: 1 }]],
    ["an array index past the end", { a: [1] }, [{ op: "add", path: "/a/2", value: 1 }]],
    ["removing an array index past the end", { a: [1] }, [{ op: "remove", path: "/a/1" }]],
    ["an index with a leading zero", { a: [1, 2] }, [{ op: "remove", path: "/a/01" }]],
    ["a non-numeric array index", { a: [1] }, [{ op: "replace", path: "/a/x", value: 1 }]],
    ["moving from a missing path", { a: 1 }, [{ op: "move", from: "/b", path: "/c" }]],
    [
      "moving a value into its own child",
      { a: { b: 1 } },
      [{ op: "move", from: "/a", path: "/a/b/c" }],
    ],
    ["copying from a missing path", { a: 1 }, [{ op: "copy", from: "/b", path: "/c" }]],
    ["a pointer without a leading slash", { a: 1 }, [{ op: "remove", path: "a" }]],
    ["an unknown op", { a: 1 }, [{ op: "frobnicate", path: "/a" } as unknown as JsonPatchOp]],
  ];
  it.each(failures)("throws on %s", (_name, doc, patch) => {
    expect(() => applyPatch(doc, patch)).toThrow(JsonPatchError);
  });

  it("is all or nothing: a later failing op leaves the input unchanged and names its index", () => {
    const doc = { users: ["a"] };
    let error: unknown;
    try {
      applyPatch(doc, [
        { op: "add", path: "/users/-", value: "b" },
        { op: "test", path: "/users/0", value: "z" },
      ]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonPatchError);
    expect((error as JsonPatchError).index).toBe(1);
    expect(doc).toEqual({ users: ["a"] });
  });

  it("treats a __proto__ key as data, not as a prototype change", () => {
    const out = applyPatch({} as Record<string, JsonValue>, [
      { op: "add", path: "/__proto__", value: { polluted: true } },
    ]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("parses pointers per RFC 6901", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/")).toEqual([""]);
    expect(parsePointer("/a~01/b~10")).toEqual(["a~1", "b/0"]);
  });
});

import { describe, expect, it } from "vitest";
import { boundaryOf, MultipartError, readParts } from "../workers/lib/multipart-stream";
import { concat } from "./songs-helpers";

/** A body served in chunks of `size` bytes. */
const streamOf = (bytes: Uint8Array, size: number) =>
  new ReadableStream<Uint8Array>({
    start(ctl) {
      for (let i = 0; i < bytes.length; i += size) ctl.enqueue(bytes.slice(i, i + size));
      ctl.close();
    },
  });

/** What the platform's own FormData encoder makes, so the parser is checked against a real client. */
async function encoded(form: FormData) {
  const res = new Response(form);
  return {
    bytes: new Uint8Array(await res.arrayBuffer()),
    boundary: boundaryOf(res.headers.get("Content-Type"))!,
  };
}

async function parse(bytes: Uint8Array, boundary: string, size: number) {
  const out: { name: string; filename?: string; contentType?: string; data: Uint8Array }[] = [];
  for await (const part of readParts(streamOf(bytes, size), boundary)) {
    const chunks: Uint8Array[] = [];
    for await (const c of part.chunks()) chunks.push(c.slice());
    out.push({
      name: part.name,
      filename: part.filename,
      contentType: part.contentType,
      data: concat(...chunks),
    });
  }
  return out;
}

describe("streaming multipart reader", () => {
  it("reads fields and a binary file exactly, whatever the chunk size", async () => {
    // File bytes full of CR, LF and dashes, the characters a delimiter is made of.
    const file = new Uint8Array(20_000).map((_, i) => [13, 10, 45, i & 0xff][i % 4]);
    const form = new FormData();
    form.append("trackName", "Ünïcode name");
    form.append("file", new File([file], "a b.mp3", { type: "audio/mpeg" }));
    form.append("isPublic", "true");
    const { bytes, boundary } = await encoded(form);
    for (const size of [1, 3, 64, 4096, bytes.length]) {
      const parts = await parse(bytes, boundary, size);
      expect(
        parts.map((p) => [p.name, p.filename, p.contentType]),
        `chunks of ${size}`,
      ).toEqual([
        ["trackName", undefined, undefined],
        ["file", "a b.mp3", "audio/mpeg"],
        ["isPublic", undefined, undefined],
      ]);
      expect(new TextDecoder().decode(parts[0].data)).toBe("Ünïcode name");
      expect(parts[1].data).toEqual(file);
      expect(new TextDecoder().decode(parts[2].data)).toBe("true");
    }
  });

  it("finds the next part when a part is not drained, and reads text with a cap", async () => {
    const form = new FormData();
    form.append("skip", new File([new Uint8Array(10_000).fill(9)], "x.bin"));
    form.append("name", "value");
    form.append("long", "x".repeat(100));
    const { bytes, boundary } = await encoded(form);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const part of readParts(streamOf(bytes, 500), boundary)) {
          if (part.name === "skip") continue;
          seen.push(`${part.name}=${await part.text(50)}`);
        }
      })(),
    ).rejects.toThrow(new MultipartError('Form field "long" is longer than 50 bytes.'));
    expect(seen).toEqual(["name=value"]);
  });

  it("refuses malformed bodies with a MultipartError", async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const cases: [string, string][] = [
      [
        '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
        "not closed by its boundary",
      ],
      ["--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--", "not form-data"],
      ["--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--", "has no name"],
      ["--b\r\nno colon here\r\n\r\nx\r\n--b--", "header has no name"],
      ["no boundary at all", "not closed by its boundary"],
      [
        `--b\r\nContent-Disposition: form-data; name="a"; x="${"y".repeat(9000)}"\r\n\r\nx\r\n--b--`,
        "headers are too long",
      ],
    ];
    for (const [body, message] of cases) {
      await expect(parse(enc(body), "b", 7), message).rejects.toThrow(MultipartError);
      await expect(parse(enc(body), "b", 7)).rejects.toThrow(message);
    }
    const many =
      Array.from(
        { length: 101 },
        (_, i) => `--b\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`,
      ).join("") + "--b--";
    await expect(parse(enc(many), "b", 1000)).rejects.toThrow("more than 100 parts");
  });

  it("takes the boundary from a multipart/form-data Content-Type only", () => {
    expect(boundaryOf("multipart/form-data; boundary=abc123")).toBe("abc123");
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="with space"')).toBe(
      "with space",
    );
    expect(boundaryOf("application/json")).toBeUndefined();
    expect(boundaryOf("multipart/form-data")).toBeUndefined();
    expect(boundaryOf("multipart/mixed; boundary=x")).toBeUndefined();
    expect(boundaryOf(undefined)).toBeUndefined();
  });
});

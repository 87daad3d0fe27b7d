import { PhotonImage } from "@cf-wasm/photon";
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, signUp, type TestAccount } from "./helpers";
import { makeAvatar, merch, uniqueSlug } from "./avatars-helpers";

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});

/** A w x h image of a diagonal gradient, encoded by photon (PNG, JPEG or WebP). */
function picture(
  w: number,
  h: number,
  as: "png" | "jpeg" | "webp" = "png",
): Uint8Array<ArrayBuffer> {
  const px = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) px.set([(x * 255) / w, (y * 255) / h, 128, 255], (y * w + x) * 4);
  const img = new PhotonImage(px, w, h);
  try {
    const out =
      as === "png"
        ? img.get_bytes()
        : as === "jpeg"
          ? img.get_bytes_jpeg(80)
          : img.get_bytes_webp();
    return new Uint8Array(out);
  } finally {
    img.free();
  }
}

function sizeOfPng(b: Uint8Array) {
  const v = new DataView(b.buffer, b.byteOffset);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

const upload = (
  slug: string,
  bytes: Uint8Array<ArrayBuffer> | string,
  type: string,
  token = boss.token,
) => {
  const form = new FormData();
  form.append("file", new File([bytes], "art", { type }));
  return merch(`/avatars/${slug}/image`, { method: "PUT", token, body: form });
};

async function art(slug: string, query = "", headers: Record<string, string> = {}) {
  const res = await fetchRaw(`/avatars/${slug}/image${query}`, headers);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}
const fetchRaw = (path: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`http://hangout.test/api/merch-service${path}`, { headers });

describe("avatar art", () => {
  it("makes PNG thumbnails at 128, 256 (default), 500 and 1024, with a 60 s cache and an ETag", async () => {
    const a = await makeAvatar(boss.token);
    const up = await upload(a.slug, picture(800, 400), "image/png");
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      slug: a.slug,
      contentType: "image/png",
      sizes: [128, 256, 500, 1024],
    });
    for (const [query, side] of [
      ["", 256],
      ["?size=128", 128],
      ["?size=256", 256],
      ["?size=500", 500],
      ["?size=1024", 1024],
    ] as const) {
      const { res, bytes } = await art(a.slug, query);
      expect(res.status, query).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/png");
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=60");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      // Fitted inside size x size, aspect kept (800 x 400 is twice as wide as tall).
      expect(sizeOfPng(bytes), query).toEqual({ width: side, height: side / 2 });
    }
    const { res } = await art(a.slug, "?size=500");
    const etag = res.headers.get("ETag")!;
    expect(etag).toMatch(/^".+-500"$/);
    const again = await art(a.slug, "?size=500", { "If-None-Match": etag });
    expect(again.res.status).toBe(304);
    expect((await art(a.slug, "?size=128", { "If-None-Match": etag })).res.status).toBe(200);
    // The DTO's URLs carry the upload's version, so new art is never hidden by a cache.
    const dto = (await merch(`/avatars/${a.slug}`)).body;
    expect(dto.hasArt).toBe(true);
    expect(dto.imageUrl).toContain(`v=${etag.slice(1).split("-500")[0]}`);
    expect(dto.thumbnails["1024"]).toContain("size=1024");
  });

  it("reads JPEG and WebP too, and replaces old art (old objects removed)", async () => {
    const a = await makeAvatar(boss.token);
    expect((await upload(a.slug, picture(300, 300, "jpeg"), "image/jpeg")).status).toBe(200);
    const first = (await merch(`/admin/avatars/${a.slug}`, { token: boss.token })).body.imageUrl;
    expect(sizeOfPng((await art(a.slug, "?size=128")).bytes)).toEqual({ width: 128, height: 128 });
    expect((await upload(a.slug, picture(200, 100, "webp"), "image/webp")).status).toBe(200);
    expect((await merch(`/avatars/${a.slug}`)).body.imageUrl).not.toBe(first);
    expect(sizeOfPng((await art(a.slug, "?size=128")).bytes)).toEqual({ width: 128, height: 64 });
    // One upload's original and four thumbnails: the replaced art is gone (after the response).
    await expect
      .poll(async () => (await env.UPLOADS.list({ prefix: `avatars/${a.slug}/` })).objects.length)
      .toBe(5);
  });

  it("refuses an invalid size with 400, an unknown avatar with 404", async () => {
    const a = await makeAvatar(boss.token);
    for (const q of ["?size=64", "?size=abc", "?size=256.0x", "?size=1000"]) {
      const res = await merch(`/avatars/${a.slug}/image${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
    const bad = await merch(`/avatars/${a.slug}/image?size=64`);
    expect(bad.body).toMatchObject({
      statusCode: 400,
      message: "size must be one of 128, 256, 500, 1024",
    });
    expect((await art(uniqueSlug())).res.status).toBe(404);
  });

  it("draws art from the slug for an avatar without any, never a broken image", async () => {
    const a = await makeAvatar(boss.token);
    const { res, bytes } = await art(a.slug, "?size=500");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get("Content-Security-Policy")).toBe(
      "default-src 'none'; style-src 'unsafe-inline'",
    );
    const text = new TextDecoder().decode(bytes);
    expect(text).toMatch(/^<svg [^>]*width="500" height="500"/);
    // The same slug draws the same picture.
    expect(new TextDecoder().decode((await art(a.slug, "?size=500")).bytes)).toBe(text);
  });

  it("stores SVG as sent, serves it at every size with a CSP that forbids script, and refuses active SVG", async () => {
    const a = await makeAvatar(boss.token);
    const svg = `<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#f0f"/></svg>`;
    const up = await upload(a.slug, svg, "image/svg+xml");
    expect(up.status).toBe(200);
    expect(up.body.contentType).toBe("image/svg+xml");
    for (const q of ["", "?size=1024"]) {
      const { res, bytes } = await art(a.slug, q);
      expect(res.headers.get("Content-Type")).toBe("image/svg+xml");
      expect(res.headers.get("Content-Security-Policy")).toBe(
        "default-src 'none'; style-src 'unsafe-inline'",
      );
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(new TextDecoder().decode(bytes)).toBe(svg);
    }
    for (const evil of [
      `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
      `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`,
      `<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>`,
      `<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>`,
    ]) {
      const res = await upload(a.slug, evil, "image/svg+xml");
      expect(res.status, evil).toBe(400);
      expect(res.body.message).toMatch(/SVG art must not contain scripts/);
    }
    expect(new TextDecoder().decode((await art(a.slug)).bytes)).toBe(svg);
  });

  it("refuses what is not art: wrong types, empty, too big, undecodable, huge dimensions; a plain user", async () => {
    const a = await makeAvatar(boss.token);
    const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
    const cases: [Uint8Array<ArrayBuffer> | string, string, number, RegExp][] = [
      ["hello, I am text", "text/plain", 415, /file must be a PNG, JPEG, WebP or SVG file\./],
      [gif, "image/gif", 415, /file must be a PNG, JPEG, WebP or SVG file\./],
      [new Uint8Array(0), "image/png", 400, /file is empty\./],
      [
        new Uint8Array([
          0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 10,
          0, 0, 0, 10, 1, 2, 3,
        ]),
        "image/png",
        400,
        /could not be read as an image/,
      ],
    ];
    // A PNG header claiming 5000 x 10 is refused before any decoding.
    const huge = picture(10, 10);
    new DataView(huge.buffer, huge.byteOffset).setUint32(16, 5000);
    cases.push([huge, "image/png", 400, /at most 2048 x 2048 pixels; it is 5000 x 10/]);
    cases.push([
      new Uint8Array(3 * 1024 * 1024)
        .fill(1, 0)
        .map((v, i) => (i < 8 ? [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a][i] : v)),
      "image/png",
      413,
      /at most/,
    ]);
    for (const [bytes, type, status, message] of cases) {
      const res = await upload(a.slug, bytes, type);
      expect(res.status, `${type} ${bytes.length}`).toBe(status);
      expect(JSON.stringify(res.body.message)).toMatch(message);
    }
    const noFile = await merch(`/avatars/${a.slug}/image`, {
      method: "PUT",
      token: boss.token,
      body: new FormData(),
    });
    expect(noFile.status).toBe(400);
    expect((await upload(uniqueSlug(), picture(4, 4), "image/png")).status).toBe(404);
    const u = await signUp();
    expect((await upload(a.slug, picture(4, 4), "image/png", u.token)).status).toBe(403);
    expect(
      (await merch(`/avatars/${a.slug}/image`, { method: "PUT", body: new FormData() })).status,
    ).toBe(401);
    expect((await merch(`/avatars/${a.slug}`)).body.hasArt).toBe(false);
  });
});

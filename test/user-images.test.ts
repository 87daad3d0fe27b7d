import { PhotonImage } from "@cf-wasm/photon";
import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { userImages } from "../workers/db/schema";
import { PICTURE_UPLOADS_PER_HOUR } from "../workers/user-service/images";
import { MSG } from "../workers/user-service/messages";
import { admin, countRows, guestToken, signUp, user, type TestAccount } from "./helpers";

/** A real 1x1 RGB PNG, built here: signature, IHDR, an uncompressed zlib IDAT, IEND. */
function tinyPng(r = 0x56, g = 0x2d, b = 0xf9): Uint8Array<ArrayBuffer> {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes: number[]) =>
    (bytes.reduce((c, x) => crcTable[(c ^ x) & 0xff] ^ (c >>> 8), 0xffffffff) ^ 0xffffffff) >>> 0;
  const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  const chunk = (type: string, data: number[]) => {
    const body = [...type].map((ch) => ch.charCodeAt(0)).concat(data);
    return [...u32(data.length), ...body, ...u32(crc32(body))];
  };
  const scanline = [0, r, g, b]; // filter type 0, then one RGB pixel
  let a = 1,
    s = 0;
  for (const x of scanline) [a, s] = [(a + x) % 65521, (s + ((a + x) % 65521)) % 65521];
  const zlib = [
    0x78,
    0x01,
    0x01,
    scanline.length,
    0,
    ~scanline.length & 0xff,
    0xff,
    ...scanline,
    ...u32(((s << 16) | a) >>> 0),
  ];
  return new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...chunk("IHDR", [...u32(1), ...u32(1), 8, 2, 0, 0, 0]),
    ...chunk("IDAT", zlib),
    ...chunk("IEND", []),
  ]);
}

const MB = 1024 * 1024;

/** Decodes an image the way a browser would and answers its size and first pixel. */
function pixels(bytes: Uint8Array) {
  const img = PhotonImage.new_from_byteslice(bytes);
  try {
    return {
      width: img.get_width(),
      height: img.get_height(),
      rgba: [...img.get_raw_pixels().slice(0, 4)],
    };
  } finally {
    img.free();
  }
}

/** A w x h JPEG, its left half red and right half blue (photon encodes it: JFIF, no EXIF). */
function redBlueJpeg(w: number, h: number): Uint8Array {
  const px = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      px.set(x < w / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], (y * w + x) * 4);
  const img = new PhotonImage(px, w, h);
  try {
    return img.get_bytes_jpeg(95);
  } finally {
    img.free();
  }
}

/**
 * An APP1 "Exif" segment as a phone writes one: a little-endian TIFF whose IFD0 holds the
 * Orientation (when given) and a pointer to a GPS IFD with a latitude reference and a
 * processing method reading "GPS".
 */
function exifApp1(orientation?: number): Uint8Array {
  const entries0 = orientation ? 2 : 1;
  const gpsAt = 8 + 2 + entries0 * 12 + 4;
  const dataAt = gpsAt + 2 + 2 * 12 + 4;
  const t = new DataView(new ArrayBuffer(dataAt + 12));
  [0x49, 0x49].forEach((b, i) => t.setUint8(i, b));
  t.setUint16(2, 42, true);
  t.setUint32(4, 8, true);
  const entry = (at: number, tag: number, type: number, count: number, value: number) => {
    t.setUint16(at, tag, true);
    t.setUint16(at + 2, type, true);
    t.setUint32(at + 4, count, true);
    if (type === 3) t.setUint16(at + 8, value, true);
    else t.setUint32(at + 8, value, true);
  };
  t.setUint16(8, entries0, true);
  if (orientation) entry(10, 0x0112, 3, 1, orientation);
  entry(10 + (entries0 - 1) * 12, 0x8825, 4, 1, gpsAt); // GPSInfo
  t.setUint16(gpsAt, 2, true);
  entry(gpsAt + 2, 0x0001, 2, 2, 0x4e); // GPSLatitudeRef "N"
  entry(gpsAt + 14, 0x001b, 7, 11, dataAt); // GPSProcessingMethod
  [..."ASCII\0\0\0GPS"].forEach((ch, i) => t.setUint8(dataAt + i, ch.charCodeAt(0)));
  const tiff = new Uint8Array(t.buffer);
  const seg = new Uint8Array(4 + 6 + tiff.length);
  seg.set([0xff, 0xe1, (seg.length - 2) >> 8, (seg.length - 2) & 0xff]);
  seg.set(
    [..."Exif\0\0"].map((ch) => ch.charCodeAt(0)),
    4,
  );
  seg.set(tiff, 10);
  return seg;
}

/** `jpeg` with `segment` inserted after its JFIF APP0 segment, where cameras put EXIF. */
function withSegment(jpeg: Uint8Array, segment: Uint8Array): Uint8Array<ArrayBuffer> {
  const at = jpeg[3] === 0xe0 ? 4 + ((jpeg[4] << 8) | jpeg[5]) : 2;
  const out = new Uint8Array(jpeg.length + segment.length);
  out.set(jpeg.subarray(0, at));
  out.set(segment, at);
  out.set(jpeg.subarray(at), at + segment.length);
  return out;
}

const contains = (hay: Uint8Array, text: string) => {
  let s = "";
  for (const b of hay) s += String.fromCharCode(b);
  return s.includes(text);
};

function form(file: Blob | string | undefined, kind: string | undefined, name = "pic.png") {
  const f = new FormData();
  if (file !== undefined) f.append("file", file as Blob, name);
  if (kind !== undefined) f.append("kind", kind);
  return f;
}
const pngFile = (bytes = tinyPng(), type = "image/png") => new File([bytes], "pic.png", { type });
const upload = (a: TestAccount | string | undefined, body: FormData) =>
  user("/users/images", { method: "POST", token: typeof a === "string" ? a : a?.token, body });
const fetchImage = (id: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`http://hangout.test/api/user-service/users/images/${id}`, { headers });
const ownProfile = async (a: TestAccount) =>
  (await user("/users/profile", { token: a.token })).body;
const r2Keys = async (uuid: string) =>
  (await env.UPLOADS.list({ prefix: `users/${uuid}/` })).objects.map((o) => o.key);

describe("POST /users/images", () => {
  it("stores a PNG in R2, records it, and makes it the profile picture", async () => {
    const a = await signUp();
    const png = tinyPng();
    const before = await countRows("user_images");
    const res = await upload(a, form(pngFile(png), "profilePicture"));
    expect(res.status).toBe(201);
    const { id } = res.body;
    expect(res.body).toEqual({
      id,
      kind: "profilePicture",
      url: `/api/user-service/users/images/${id}`,
      contentType: "image/png",
      size: expect.any(Number),
    });
    expect(await countRows("user_images")).toBe(before + 1);
    expect(await r2Keys(a.uuid)).toEqual([`users/${a.uuid}/profilePicture/${id}`]);
    expect((await ownProfile(a)).profilePicture).toBe(res.body.url);
    const cover = await upload(a, form(pngFile(tinyPng(1, 2, 3)), "coverPicture"));
    expect(cover.status).toBe(201);
    expect(await ownProfile(a)).toMatchObject({
      profilePicture: res.body.url,
      coverPicture: cover.body.url,
    });
    expect((await user(`/profile/${a.uuid}`)).body.coverPicture).toBe(cover.body.url);
  });

  it("trusts the bytes, not the declared type: a PNG sent as octet-stream is stored as image/png", async () => {
    const a = await signUp();
    const res = await upload(
      a,
      form(pngFile(tinyPng(), "application/octet-stream"), "profilePicture"),
    );
    expect(res.status).toBe(201);
    expect(res.body.contentType).toBe("image/png");
  });

  it("takes exactly 5 MB (stored re-encoded, so the padding is gone) and refuses 5 MB + 1 byte with 413, storing nothing", async () => {
    const a = await signUp();
    const big = new Uint8Array(5 * MB + 1);
    big.set(tinyPng());
    const ok = await upload(
      a,
      form(new File([big.subarray(0, 5 * MB)], "big.png", { type: "image/png" }), "coverPicture"),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBeLessThan(1024);
    const rows = await countRows("user_images");
    const keys = await r2Keys(a.uuid);
    const res = await upload(
      a,
      form(new File([big], "big.png", { type: "image/png" }), "coverPicture"),
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: "file must be at most 5 MB.",
      error: "Payload Too Large",
    });
    // Far too big: refused from Content-Length before the body is read.
    const huge = await upload(
      a,
      form(new File([new Uint8Array(6 * MB)], "huge.png", { type: "image/png" }), "coverPicture"),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe("file must be at most 5 MB.");
    expect(await countRows("user_images")).toBe(rows);
    expect(await r2Keys(a.uuid)).toEqual(keys);
  });

  it("refuses what is not a JPEG, PNG, WebP or GIF with 415, whatever its name or declared type", async () => {
    const a = await signUp();
    const rows = await countRows("user_images");
    const text = new TextEncoder().encode("just some text, honestly not a picture");
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>');
    for (const file of [
      new File([text], "evil.png", { type: "image/png" }),
      new File([svg], "x.svg", { type: "image/svg+xml" }),
      pngFile(tinyPng(), "text/html"),
    ]) {
      const res = await upload(a, form(file, "profilePicture", file.name));
      expect(res.status, file.name).toBe(415);
      expect(res.body).toEqual({
        statusCode: 415,
        message: "file must be a JPEG, PNG, WebP or GIF file.",
        error: "Unsupported Media Type",
      });
    }
    expect(await countRows("user_images")).toBe(rows);
    expect(await r2Keys(a.uuid)).toEqual([]);
    expect((await ownProfile(a)).profilePicture).toBeNull();
  });

  it("refuses a missing or bad file or kind, and a body that is not multipart, with 400", async () => {
    const a = await signUp();
    const rows = await countRows("user_images");
    const cases: [FormData | string, string, Record<string, string>?][] = [
      [
        form(undefined, "profilePicture"),
        "file is required: send the image as a multipart file field",
      ],
      [
        form("not a file", "profilePicture"),
        "file is required: send the image as a multipart file field",
      ],
      [form(pngFile(), undefined), "kind must be one of profilePicture, coverPicture"],
      [form(pngFile(), "avatar"), "kind must be one of profilePicture, coverPicture"],
      [form(new File([], "empty.png", { type: "image/png" }), "profilePicture"), "file is empty."],
      [
        JSON.stringify({ file: "x", kind: "profilePicture" }),
        "file is required: send the image as a multipart file field",
        { "Content-Type": "application/json" },
      ],
      [
        "--nope\r\ngarbage",
        "Malformed FormData request.",
        { "Content-Type": "multipart/form-data; boundary=xyz" },
      ],
    ];
    for (const [body, message, headers] of cases) {
      const res = await user("/users/images", { method: "POST", token: a.token, body, headers });
      expect(res.status, message).toBe(400);
      expect([res.body.message].flat().join(" | "), message).toContain(message);
    }
    expect(await countRows("user_images")).toBe(rows);
    expect(await r2Keys(a.uuid)).toEqual([]);
  });

  it("is 401 without a token and 403 for a guest, storing nothing", async () => {
    const rows = await countRows("user_images");
    expect((await upload(undefined, form(pngFile(), "profilePicture"))).status).toBe(401);
    expect((await upload(await guestToken(), form(pngFile(), "profilePicture"))).status).toBe(403);
    expect(await countRows("user_images")).toBe(rows);
  });
});

describe("POST /users/images: what is stored", () => {
  it("strips EXIF and GPS: the served JPEG has no Exif segment and no GPS bytes, and is the same picture", async () => {
    const a = await signUp();
    const sent = withSegment(redBlueJpeg(16, 8), exifApp1());
    expect(contains(sent, "Exif") && contains(sent, "GPS")).toBe(true);
    const up = await upload(
      a,
      form(new File([sent], "gps.jpg", { type: "image/jpeg" }), "profilePicture"),
    );
    expect(up.status).toBe(201);
    expect(up.body.contentType).toBe("image/jpeg");
    const served = new Uint8Array(await (await fetchImage(up.body.id)).arrayBuffer());
    expect([served[0], served[1]]).toEqual([0xff, 0xd8]);
    expect(contains(served, "Exif")).toBe(false);
    expect(contains(served, "GPS")).toBe(false);
    const stored = await env.UPLOADS.get(`users/${a.uuid}/profilePicture/${up.body.id}`);
    expect(contains(new Uint8Array(await stored!.arrayBuffer()), "Exif")).toBe(false);
    const { width, height, rgba } = pixels(served);
    expect({ width, height }).toEqual({ width: 16, height: 8 });
    expect(rgba[0]).toBeGreaterThan(200); // the top-left corner is still red
  });

  it("applies the EXIF orientation before dropping it, so a phone photo stays upright", async () => {
    const a = await signUp();
    // Stored 32 x 16, left red, right blue; orientation 6 says "turn 90° clockwise to view".
    const sent = withSegment(redBlueJpeg(32, 16), exifApp1(6));
    const up = await upload(a, form(new File([sent], "phone.jpg"), "profilePicture"));
    expect(up.status).toBe(201);
    const img = PhotonImage.new_from_byteslice(
      new Uint8Array(await (await fetchImage(up.body.id)).arrayBuffer()),
    );
    try {
      expect([img.get_width(), img.get_height()]).toEqual([16, 32]);
      const px = img.get_raw_pixels();
      const at = (x: number, y: number) => [...px.slice((y * 16 + x) * 4, (y * 16 + x) * 4 + 3)];
      const [topR, , topB] = at(8, 4);
      const [botR, , botB] = at(8, 27);
      // Turned clockwise, the left (red) half is now on top.
      expect(topR > 200 && topB < 60).toBe(true);
      expect(botB > 200 && botR < 60).toBe(true);
    } finally {
      img.free();
    }
  });

  it("stores a GIF as a PNG of its pixels", async () => {
    const a = await signUp();
    const gif = Uint8Array.from(
      atob("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="),
      (ch) => ch.charCodeAt(0),
    );
    const up = await upload(a, form(new File([gif], "dot.gif"), "coverPicture"));
    expect(up.status).toBe(201);
    expect(up.body.contentType).toBe("image/png");
    const res = await fetchImage(up.body.id);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(pixels(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ width: 1, height: 1 });
  });

  it("refuses, before decoding, an image of too many pixels, and one that does not decode, with 400", async () => {
    const a = await signUp();
    const huge = tinyPng();
    new DataView(huge.buffer).setUint32(16, 5000);
    new DataView(huge.buffer).setUint32(20, 5000);
    const tooBig = await upload(a, form(pngFile(huge), "profilePicture"));
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.message).toBe(
      "file is too large an image (5000 x 5000): at most 4096 pixels a side and 12.6 megapixels.",
    );
    const broken = tinyPng().slice(0, 40);
    const unreadable = await upload(a, form(pngFile(broken), "profilePicture"));
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.message).toBe("file is not a readable image.");
    expect(await r2Keys(a.uuid)).toEqual([]);
  });

  it("replaces: the picture a new one replaces is deleted from R2 and D1, and its URL is 404", async () => {
    const a = await signUp();
    const first = (await upload(a, form(pngFile(tinyPng(1, 1, 1)), "profilePicture"))).body;
    const cover = (await upload(a, form(pngFile(tinyPng(2, 2, 2)), "coverPicture"))).body;
    expect((await fetchImage(first.id)).status).toBe(200);
    const second = (await upload(a, form(pngFile(tinyPng(3, 3, 3)), "profilePicture"))).body;
    expect((await ownProfile(a)).profilePicture).toBe(second.url);
    const old = await fetchImage(first.id);
    expect(old.status).toBe(404);
    await old.arrayBuffer();
    expect((await r2Keys(a.uuid)).sort()).toEqual(
      [
        `users/${a.uuid}/coverPicture/${cover.id}`,
        `users/${a.uuid}/profilePicture/${second.id}`,
      ].sort(),
    );
    const rows = await db(env)
      .select()
      .from(userImages)
      .where(eq(userImages.userUuid, a.uuid))
      .all();
    expect(rows.map((r) => r.id).sort()).toEqual([cover.id, second.id].sort());
    // The other kind is untouched.
    const c = await fetchImage(cover.id);
    expect(c.status).toBe(200);
    await c.arrayBuffer();
  });

  it(`allows ${PICTURE_UPLOADS_PER_HOUR} uploads an hour per account, then 429 with Retry-After, storing nothing`, async () => {
    const a = await signUp();
    for (let i = 0; i < PICTURE_UPLOADS_PER_HOUR; i++)
      expect((await upload(a, form(pngFile(tinyPng(i, i, i)), "coverPicture"))).status).toBe(201);
    const keys = await r2Keys(a.uuid);
    const res = await upload(a, form(pngFile(), "coverPicture"));
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(
      /^Too many picture uploads\. Please try again in \d+ minutes?\.$/,
    );
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await r2Keys(a.uuid)).toEqual(keys);
    // Another account is not affected.
    expect((await upload(await signUp(), form(pngFile(), "coverPicture"))).status).toBe(201);
  });
});

describe("GET /users/images/{id}", () => {
  it("is public and answers the same picture with type, ETag and a one-year immutable cache", async () => {
    const a = await signUp();
    const png = tinyPng(9, 8, 7);
    const { id, size } = (await upload(a, form(pngFile(png), "profilePicture"))).body;
    const res = await fetchImage(id);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(res.headers.get("Content-Length")).toBe(String(size));
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("ETag")).toBe(`"${id}"`);
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    // Re-encoded, so other bytes, but the same pixel.
    expect(pixels(new Uint8Array(await res.arrayBuffer()))).toEqual({
      width: 1,
      height: 1,
      rgba: [9, 8, 7, 255],
    });
  });

  it("answers byte ranges with 206 and the right slice, and 416 past the end", async () => {
    const a = await signUp();
    const { id } = (await upload(a, form(pngFile(), "profilePicture"))).body;
    const png = new Uint8Array(await (await fetchImage(id)).arrayBuffer());
    const mid = await fetchImage(id, { Range: "bytes=8-23" });
    expect(mid.status).toBe(206);
    expect(mid.headers.get("Content-Range")).toBe(`bytes 8-23/${png.length}`);
    expect(mid.headers.get("Content-Length")).toBe("16");
    expect(new Uint8Array(await mid.arrayBuffer())).toEqual(png.slice(8, 24));
    const tail = await fetchImage(id, { Range: "bytes=-12" });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(png.slice(-12));
    const open = await fetchImage(id, { Range: "bytes=60-" });
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(png.slice(60));
    const past = await fetchImage(id, { Range: `bytes=${png.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("Content-Range")).toBe(`bytes */${png.length}`);
    await past.arrayBuffer();
    // A malformed range is ignored: the whole image.
    const junk = await fetchImage(id, { Range: "pages=1-2" });
    expect(junk.status).toBe(200);
    expect((await junk.arrayBuffer()).byteLength).toBe(png.length);
  });

  it("answers 304 to If-None-Match with the ETag", async () => {
    const a = await signUp();
    const { id } = (await upload(a, form(pngFile(), "profilePicture"))).body;
    const first = await fetchImage(id);
    await first.arrayBuffer();
    const etag = first.headers.get("ETag")!;
    const res = await fetchImage(id, { "If-None-Match": `W/"other", ${etag}` });
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(etag);
    expect(await res.text()).toBe("");
    const stale = await fetchImage(id, { "If-None-Match": '"something-else"' });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it("is 404 for an unknown id and 400 for one that is not a uuid", async () => {
    const missing = await user(`/users/images/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      message: "Image not found.",
      error: "Not Found",
    });
    const notUuid = await user("/users/images/abc");
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.message).toBe("id must be a UUID");
  });
});

describe("DELETE /users/images/{id}", () => {
  it("refuses anyone but the owner with the catalogue's message, and keeps the image", async () => {
    const owner = await signUp();
    const other = await signUp();
    const { id, url } = (await upload(owner, form(pngFile(), "profilePicture"))).body;
    const res = await user(`/users/images/${id}`, { method: "DELETE", token: other.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      message: MSG.imageDeleteRefused,
      error: "Forbidden",
    });
    expect(res.body.message).toBe("Unauthorized to delete.");
    expect(
      (await user(`/users/images/${id}`, { method: "DELETE", token: await guestToken() })).status,
    ).toBe(403);
    expect((await user(`/users/images/${id}`, { method: "DELETE" })).status).toBe(401);
    expect((await fetchImage(id)).status).toBe(200);
    expect((await ownProfile(owner)).profilePicture).toBe(url);
  });

  it("lets the owner delete: gone from R2 and D1, and the profile field becomes null", async () => {
    const owner = await signUp();
    const cover = (await upload(owner, form(pngFile(), "coverPicture"))).body;
    const current = (await upload(owner, form(pngFile(), "profilePicture"))).body;
    // Deleting one kind leaves the other in the profile.
    expect(
      (await user(`/users/images/${cover.id}`, { method: "DELETE", token: owner.token })).status,
    ).toBe(200);
    expect(await ownProfile(owner)).toMatchObject({
      profilePicture: current.url,
      coverPicture: null,
    });
    const res = await user(`/users/images/${current.id}`, { method: "DELETE", token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: current.id, deleted: true });
    expect((await fetchImage(current.id)).status).toBe(404);
    expect((await ownProfile(owner)).profilePicture).toBeNull();
    expect(await r2Keys(owner.uuid)).toEqual([]);
    expect(
      (await user(`/users/images/${current.id}`, { method: "DELETE", token: owner.token })).status,
    ).toBe(404);
  });

  it("lets an admin delete anyone's image", async () => {
    const owner = await signUp();
    const { id } = (await upload(owner, form(pngFile(), "coverPicture"))).body;
    const res = await user(`/users/images/${id}`, {
      method: "DELETE",
      token: (await admin()).token,
    });
    expect(res.status).toBe(200);
    expect((await ownProfile(owner)).coverPicture).toBeNull();
  });

  it("is 400 for an id that is not a uuid and 404 for an unknown one", async () => {
    const a = await signUp();
    const bad = await user("/users/images/abc", { method: "DELETE", token: a.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("id must be a UUID");
    const missing = await user(`/users/images/${crypto.randomUUID()}`, {
      method: "DELETE",
      token: a.token,
    });
    expect(missing.status).toBe(404);
  });
});

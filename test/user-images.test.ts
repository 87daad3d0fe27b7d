import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
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
      size: png.length,
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

  it("takes exactly 5 MB and refuses 5 MB + 1 byte with 413, storing nothing", async () => {
    const a = await signUp();
    const big = new Uint8Array(5 * MB + 1);
    big.set(tinyPng());
    const ok = await upload(
      a,
      form(new File([big.subarray(0, 5 * MB)], "big.png", { type: "image/png" }), "coverPicture"),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBe(5 * MB);
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

describe("GET /users/images/{id}", () => {
  it("is public and answers the same bytes with type, ETag and a one-year immutable cache", async () => {
    const a = await signUp();
    const png = tinyPng(9, 8, 7);
    const { id } = (await upload(a, form(pngFile(png), "profilePicture"))).body;
    const res = await fetchImage(id);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(res.headers.get("Content-Length")).toBe(String(png.length));
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("ETag")).toBe(`"${id}"`);
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(png);
  });

  it("answers byte ranges with 206 and the right slice, and 416 past the end", async () => {
    const a = await signUp();
    const png = tinyPng();
    const { id } = (await upload(a, form(pngFile(png), "profilePicture"))).body;
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
    const old = (await upload(owner, form(pngFile(), "profilePicture"))).body;
    const current = (await upload(owner, form(pngFile(), "profilePicture"))).body;
    // An image that is no longer the current picture leaves the profile alone.
    expect(
      (await user(`/users/images/${old.id}`, { method: "DELETE", token: owner.token })).status,
    ).toBe(200);
    expect((await ownProfile(owner)).profilePicture).toBe(current.url);
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

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MSG as STORE_MSG } from "../workers/merch-service/messages";
import { countRows, signUp } from "./helpers";
import { fileForm, makeConsumable, merch, storeAdmin, tinyGif } from "./token-helpers";

describe("consumables", { timeout: 30_000 }, () => {
  it("refuses every write without a token (401) and for a plain user (403), changing nothing", async () => {
    const item = await makeConsumable();
    const userToken = (await signUp()).token;
    const rows = [await countRows("consumables"), await countRows("consumable_files")];
    const writes: [string, string, () => unknown][] = [
      ["POST", "/consumables", () => ({ name: "n", tokenCost: 1 })],
      ["PATCH", `/consumables/${item.id}`, () => ({ name: "x" })],
      ["DELETE", `/consumables/${item.id}`, () => undefined],
      ["POST", "/consumables/files", () => fileForm(tinyGif())],
    ];
    for (const [method, path, body] of writes) {
      expect((await merch(path, { method, body: body() })).status, `${method} ${path}`).toBe(401);
      expect(
        (await merch(path, { method, token: userToken, body: body() })).status,
        `${method} ${path}`,
      ).toBe(403);
    }
    expect([await countRows("consumables"), await countRows("consumable_files")]).toEqual(rows);
  });

  it("uploads a file and serves it with its type, ETag and cache headers", async () => {
    const adminToken = (await storeAdmin()).token;
    const up = await merch("/consumables/files", { token: adminToken, body: fileForm(tinyGif()) });
    expect(up).toMatchObject({
      status: 201,
      body: { contentType: "image/gif", size: tinyGif().length },
    });
    const path = `/consumables/files/${up.body.id}`;
    const got = await merch(path);
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("image/gif");
    expect(got.headers.get("ETag")).toBe(`"${up.body.id}"`);
    expect(got.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect((await merch(path, { headers: { "If-None-Match": `"${up.body.id}"` } })).status).toBe(
      304,
    );
    expect(await merch(`/consumables/files/${crypto.randomUUID()}`)).toMatchObject({
      status: 404,
      body: { message: STORE_MSG.fileNotFound },
    });

    // Not an image by its bytes: 415, nothing stored.
    const files = await countRows("consumable_files");
    expect(
      (
        await merch("/consumables/files", {
          token: adminToken,
          body: fileForm("GIF? no", "image/gif"),
        })
      ).status,
    ).toBe(415);
    expect(
      (await merch("/consumables/files", { token: adminToken, body: new FormData() })).status,
    ).toBe(400);
    expect(await countRows("consumable_files")).toBe(files);
    expect((await env.UPLOADS.list({ prefix: "consumables/" })).objects).toHaveLength(files);
  });

  it("creates, reads, updates and deletes; a file must exist to be named", async () => {
    const adminToken = (await storeAdmin()).token;
    const file = (
      await merch("/consumables/files", { token: adminToken, body: fileForm(tinyGif()) })
    ).body;
    const made = await merch("/consumables", {
      token: adminToken,
      body: {
        name: "Fireworks",
        tokenCost: 25,
        displayType: "cover",
        fileId: file.id,
        description: "Boom",
      },
    });
    expect(made).toMatchObject({
      status: 201,
      body: {
        name: "Fireworks",
        tokenCost: 25,
        displayType: "cover",
        fileId: file.id,
        imageUrl: file.url,
      },
    });
    const id = made.body.id;
    expect((await merch(`/consumables/${id}`)).body.name).toBe("Fireworks");
    expect(
      await merch(`/consumables/${id}`, {
        method: "PATCH",
        token: adminToken,
        body: { fileId: crypto.randomUUID() },
      }),
    ).toMatchObject({ status: 400, body: { message: STORE_MSG.unknownFile } });
    expect(
      await merch(`/consumables/${id}`, {
        method: "PATCH",
        token: adminToken,
        body: { tokenCost: 30, displayType: "small", fileId: null },
      }),
    ).toMatchObject({ status: 200, body: { tokenCost: 30, displayType: "small", imageUrl: null } });
    expect(
      (await merch("/consumables", { token: adminToken, body: { name: "x", tokenCost: 1 } })).body
        .displayType,
    ).toBe("small");
    expect(
      await merch(`/consumables/${id}`, { method: "DELETE", token: adminToken }),
    ).toMatchObject({ status: 200, body: { deleted: true } });
    expect(await merch(`/consumables/${id}`)).toMatchObject({
      status: 404,
      body: { message: STORE_MSG.consumableNotFound },
    });
    expect(
      (await merch(`/consumables/${id}`, { method: "DELETE", token: adminToken })).status,
    ).toBe(404);
  });

  it("answers 400 to bad input and writes nothing", async () => {
    const adminToken = (await storeAdmin()).token;
    const item = await makeConsumable();
    const rows = await countRows("consumables");
    for (const body of [
      {},
      { name: "n", tokenCost: 0 },
      { name: "n", tokenCost: -2 },
      { name: "n", tokenCost: 1.5 },
      { name: "n", tokenCost: 1, displayType: "huge" },
      { name: "", tokenCost: 1 },
      { name: "n", tokenCost: 1, fileId: "f" },
      { name: "n", tokenCost: 1, extra: true },
    ]) {
      expect(
        (await merch("/consumables", { token: adminToken, body })).status,
        JSON.stringify(body),
      ).toBe(400);
    }
    expect(
      (await merch(`/consumables/${item.id}`, { method: "PATCH", token: adminToken, body: {} }))
        .status,
    ).toBe(400);
    expect(
      (
        await merch(`/consumables/${item.id}`, {
          method: "PATCH",
          token: adminToken,
          body: { tokenCost: 0 },
        })
      ).status,
    ).toBe(400);
    for (const q of [
      "limit=0",
      "limit=33",
      "offset=-1",
      "orderBy=price",
      "createdBefore=soon",
      "id=x",
    ])
      expect((await merch(`/consumables?${q}`)).status, q).toBe(400);
    expect(await countRows("consumables")).toBe(rows);
    expect((await merch(`/consumables/${item.id}`)).body.tokenCost).toBe(item.tokenCost);
  });

  it("lists 32 a page, newest first by default, with createdBefore, orderBy and id, and counts alike", async () => {
    const made = [];
    for (let i = 0; i < 34; i++)
      made.push(
        await makeConsumable({
          name: `Item ${String(i).padStart(2, "0")}`,
          tokenCost: 100 + (i % 5),
        }),
      );
    const page1 = await merch("/consumables");
    expect(page1.body).toMatchObject({ limit: 32, offset: 0 });
    expect(page1.body.data).toHaveLength(32);
    expect(page1.body.data[0].id).toBe(made[33].id);
    const total = page1.body.total;
    const page2 = await merch(`/consumables?offset=32`);
    expect(page2.body.data.length).toBe(total - 32);
    const ids = new Set([...page1.body.data, ...page2.body.data].map((c: { id: number }) => c.id));
    expect(ids.size).toBe(total);
    expect((await merch("/consumables/count")).body).toEqual({ count: total });

    const byCost = (await merch("/consumables?orderBy=tokenCost,ASC&limit=5")).body.data.map(
      (c: { tokenCost: number }) => c.tokenCost,
    );
    expect(byCost).toEqual([...byCost].sort((a, b) => a - b));
    const cut = made[10].createdAt;
    const before = await merch(`/consumables?createdBefore=${encodeURIComponent(cut)}`);
    expect(before.body.data.every((c: { createdAt: string }) => c.createdAt < cut)).toBe(true);
    expect(
      (await merch(`/consumables/count?createdBefore=${encodeURIComponent(cut)}`)).body.count,
    ).toBe(before.body.total);
    expect(
      (await merch(`/consumables?id=${made[5].id}`)).body.data.map((c: { id: number }) => c.id),
    ).toEqual([made[5].id]);
  });
});

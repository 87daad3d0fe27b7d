import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { products } from "../workers/db/schema";
import { MSG as STORE_MSG } from "../workers/merch-service/messages";
import { countRows, signUp } from "./helpers";
import { fileForm, merch, storeAdmin, tinyGif } from "./token-helpers";

const productId = () => `prod_${crypto.randomUUID().slice(0, 8)}`;

async function makeBundle(over: Record<string, unknown> = {}) {
  const res = await merch("/token-bundles", {
    token: (await storeAdmin()).token,
    body: { productId: productId(), name: "Handful", tokenAmount: 100, ...over },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe("token bundles", { timeout: 30_000 }, () => {
  it("refuses every write without a token (401) and for a plain user (403), changing nothing", async () => {
    const bundle = await makeBundle();
    const userToken = (await signUp()).token;
    const rows = await countRows("token_bundles");
    const writes: [string, string, unknown][] = [
      ["POST", "/token-bundles", { productId: "p", name: "n", tokenAmount: 1 }],
      ["PATCH", `/token-bundles/${bundle.id}`, { name: "x" }],
      ["POST", `/token-bundles/${bundle.id}`, undefined],
      ["PATCH", `/token-bundles/${bundle.id}/thumbnail`, fileForm(tinyGif())],
    ];
    for (const [method, path, body] of writes) {
      expect(
        (await merch(path, { method, body: body instanceof FormData ? fileForm(tinyGif()) : body }))
          .status,
        `${method} ${path}`,
      ).toBe(401);
      expect(
        (
          await merch(path, {
            method,
            token: userToken,
            body: body instanceof FormData ? fileForm(tinyGif()) : body,
          })
        ).status,
        `${method} ${path}`,
      ).toBe(403);
    }
    expect(await countRows("token_bundles")).toBe(rows);
    expect((await merch(`/token-bundles/${bundle.id}`)).body.name).toBe("Handful");
  });

  it("creates, reads, updates and deletes (POST /{id}); the DTO carries the product's price", async () => {
    const adminToken = (await storeAdmin()).token;
    const pid = productId();
    await db(env)
      .insert(products)
      .values({ id: pid, name: "Handful of tokens", price: 499, currency: "usd" });
    const bundle = await makeBundle({ productId: pid, description: "For a night out" });
    expect(bundle).toMatchObject({
      productId: pid,
      name: "Handful",
      tokenAmount: 100,
      price: 499,
      currency: "usd",
      thumbnailUrl: null,
      description: "For a night out",
    });
    expect((await makeBundle()).price).toBeNull();

    const patched = await merch(`/token-bundles/${bundle.id}`, {
      method: "PATCH",
      token: adminToken,
      body: { tokenAmount: 150, description: null },
    });
    expect(patched).toMatchObject({
      status: 200,
      body: { tokenAmount: 150, description: null, price: 499 },
    });
    expect((await merch(`/token-bundles/${bundle.id}`)).body.tokenAmount).toBe(150);

    expect(
      await merch(`/token-bundles/${bundle.id}`, { method: "POST", token: adminToken }),
    ).toMatchObject({ status: 200, body: { deleted: true } });
    expect(await merch(`/token-bundles/${bundle.id}`)).toMatchObject({
      status: 404,
      body: { message: STORE_MSG.bundleNotFound },
    });
    expect(
      (await merch(`/token-bundles/${bundle.id}`, { method: "POST", token: adminToken })).status,
    ).toBe(404);
  });

  it("answers 400 to bad input and writes nothing", async () => {
    const adminToken = (await storeAdmin()).token;
    const bundle = await makeBundle();
    const rows = await countRows("token_bundles");
    for (const body of [
      {},
      { productId: "p", name: "n", tokenAmount: 0 },
      { productId: "p", name: "", tokenAmount: 5 },
      { productId: "p", name: "n", tokenAmount: 5, extra: 1 },
      { productId: "p", name: "n", tokenAmount: "5" },
    ]) {
      expect(
        (await merch("/token-bundles", { token: adminToken, body })).status,
        JSON.stringify(body),
      ).toBe(400);
    }
    expect(
      (await merch(`/token-bundles/${bundle.id}`, { method: "PATCH", token: adminToken, body: {} }))
        .status,
    ).toBe(400);
    expect(
      (
        await merch(`/token-bundles/abc`, {
          method: "PATCH",
          token: adminToken,
          body: { name: "x" },
        })
      ).status,
    ).toBe(400);
    expect((await merch(`/token-bundles?limit=0`)).status).toBe(400);
    expect((await merch(`/token-bundles?limit=33`)).status).toBe(400);
    expect(await countRows("token_bundles")).toBe(rows);
  });

  it("lists 32 a page, newest first, filters by id and productId, and counts the same filter", async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await makeBundle({ name: `B${i}` }));
    const all = await merch("/token-bundles");
    expect(all.body).toMatchObject({
      limit: 32,
      offset: 0,
      total: await countRows("token_bundles"),
    });
    expect(all.body.data.length).toBeLessThanOrEqual(32);
    expect(all.body.data.slice(0, 3).map((b: { name: string }) => b.name)).toEqual([
      "B2",
      "B1",
      "B0",
    ]);
    expect((await merch(`/token-bundles?limit=1&offset=1`)).body.data[0].name).toBe("B1");
    const pid = made[1].productId;
    const one = await merch(`/token-bundles?productId=${pid}`);
    expect(one.body).toMatchObject({ total: 1, data: [{ id: made[1].id }] });
    expect((await merch(`/token-bundles?id=${made[0].id}`)).body.data).toHaveLength(1);
    expect((await merch(`/token-bundles/count?productId=${pid}`)).body).toEqual({ count: 1 });
  });

  it("refuses a second bundle on a product, created or moved there (409), changing nothing", async () => {
    const adminToken = (await storeAdmin()).token;
    const first = await makeBundle({ tokenAmount: 100 });
    const other = await makeBundle({ tokenAmount: 900 });
    const rows = await countRows("token_bundles");
    const second = await merch("/token-bundles", {
      token: adminToken,
      body: { productId: first.productId, name: "Bigger", tokenAmount: 900 },
    });
    expect(second).toMatchObject({
      status: 409,
      body: { statusCode: 409, message: STORE_MSG.bundleProductTaken, error: "Conflict" },
    });
    const moved = await merch(`/token-bundles/${other.id}`, {
      method: "PATCH",
      token: adminToken,
      body: { productId: first.productId, name: "Moved" },
    });
    expect(moved).toMatchObject({ status: 409, body: { message: STORE_MSG.bundleProductTaken } });
    expect(await countRows("token_bundles")).toBe(rows);
    expect((await merch(`/token-bundles?productId=${first.productId}`)).body.data).toEqual([first]);
    expect((await merch(`/token-bundles/${other.id}`)).body).toEqual(other);
    // A bundle may still be saved with its own product, or moved to a product no bundle sells.
    expect(
      (
        await merch(`/token-bundles/${first.id}`, {
          method: "PATCH",
          token: adminToken,
          body: { productId: first.productId, tokenAmount: 120 },
        })
      ).status,
    ).toBe(200);
    const free = productId();
    expect(
      await merch(`/token-bundles/${other.id}`, {
        method: "PATCH",
        token: adminToken,
        body: { productId: free },
      }),
    ).toMatchObject({ status: 200, body: { productId: free } });
  });

  it("two admins creating a bundle for one product at once: exactly one wins (201, 409)", async () => {
    const adminToken = (await storeAdmin()).token;
    const pid = productId();
    const answers = await Promise.all(
      [50, 5000].map((tokenAmount) =>
        merch("/token-bundles", {
          token: adminToken,
          body: { productId: pid, name: `${tokenAmount} tokens`, tokenAmount },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const won = answers.find((a) => a.status === 201)!.body;
    expect(answers.find((a) => a.status === 409)!.body.message).toBe(STORE_MSG.bundleProductTaken);
    expect((await merch(`/token-bundles?productId=${pid}`)).body).toMatchObject({
      total: 1,
      data: [{ id: won.id, tokenAmount: won.tokenAmount }],
    });
  });

  it("migration 0010 keeps the oldest bundle of each product and then enforces one per product", async () => {
    const step = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0010_"));
    expect(step).toBeDefined();
    // Replay its token_bundles statements on rows as they could be before it: duplicates.
    const bundleSql = step!.queries.filter((q) => q.includes("token_bundles"));
    await env.DB.exec("DROP INDEX `token_bundles_product_unique`");
    const [a, b] = [productId(), productId()];
    const add = (pid: string, tokens: number) =>
      env.DB.prepare(
        "INSERT INTO token_bundles (product_id, name, token_amount) VALUES (?, ?, ?) RETURNING id",
      )
        .bind(pid, `${tokens} tokens`, tokens)
        .first<{ id: number }>();
    const oldestA = await add(a, 100);
    await add(a, 500);
    await add(a, 900);
    const onlyB = await add(b, 40);
    for (const q of bundleSql.filter((q) => !q.startsWith("DROP INDEX"))) await env.DB.exec(q);
    const left = await env.DB.prepare(
      "SELECT id, token_amount AS t FROM token_bundles WHERE product_id IN (?, ?) ORDER BY id",
    )
      .bind(a, b)
      .all<{ id: number; t: number }>();
    expect(left.results).toEqual([
      { id: oldestA!.id, t: 100 },
      { id: onlyB!.id, t: 40 },
    ]);
    await expect(add(a, 7)).rejects.toThrow(/UNIQUE constraint failed/);
  });

  it("stores a thumbnail in R2, serves it back, and replaces it", async () => {
    const adminToken = (await storeAdmin()).token;
    const bundle = await makeBundle();
    expect((await merch(`/token-bundles/${bundle.id}/thumbnail`)).status).toBe(404);
    expect(
      (
        await merch(`/token-bundles/${bundle.id}/thumbnail`, {
          method: "PATCH",
          token: adminToken,
          body: fileForm("not an image", "image/gif"),
        })
      ).status,
    ).toBe(415);
    const up = await merch(`/token-bundles/${bundle.id}/thumbnail`, {
      method: "PATCH",
      token: adminToken,
      body: fileForm(tinyGif()),
    });
    expect(up.status).toBe(200);
    expect(up.body.thumbnailUrl).toMatch(
      new RegExp(`^/api/merch-service/api/v1/token-bundles/${bundle.id}/thumbnail\\?v=`),
    );
    const got = await merch(up.body.thumbnailUrl.replace("/api/merch-service/api/v1", ""));
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("image/gif");
    expect(got.headers.get("Cache-Control")).toContain("immutable");

    const firstKey = (
      await env.UPLOADS.list({ prefix: `token-bundles/${bundle.id}/` })
    ).objects.map((o) => o.key);
    expect(firstKey).toHaveLength(1);
    const again = await merch(`/token-bundles/${bundle.id}/thumbnail`, {
      method: "PATCH",
      token: adminToken,
      body: fileForm(tinyGif()),
    });
    expect(again.body.thumbnailUrl).not.toBe(up.body.thumbnailUrl);
    const keys = (await env.UPLOADS.list({ prefix: `token-bundles/${bundle.id}/` })).objects.map(
      (o) => o.key,
    );
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toBe(firstKey[0]);
  });
});

import { describe, expect, it } from "vitest";
import { countRows, guestToken, signUp } from "./helpers";
import { merch } from "./avatars-helpers";

describe("POST /custom-fields", () => {
  it("sets and replaces the caller's own fields, answering all of them", async () => {
    const a = await signUp();
    const b = await signUp();
    const first = await merch("/custom-fields", {
      token: a.token,
      body: { key: "theme", value: "dark" },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ fields: { theme: "dark" } });
    await merch("/custom-fields", {
      token: a.token,
      body: { key: "discord.handle", value: "nova#1" },
    });
    const replaced = await merch("/custom-fields", {
      token: a.token,
      body: { key: "theme", value: "light" },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ fields: { "discord.handle": "nova#1", theme: "light" } });
    // Another user's fields are their own.
    expect(
      (await merch("/custom-fields", { token: b.token, body: { key: "theme", value: "x" } })).body,
    ).toEqual({ fields: { theme: "x" } });
  });

  it("refuses bad keys and values, a 51st field, guests and no token, and writes nothing", async () => {
    const a = await signUp();
    const before = await countRows("custom_fields");
    const cases: [unknown, RegExp][] = [
      [{ value: "x" }, /key/],
      [{ key: "", value: "x" }, /key must not be empty/],
      [{ key: "k".repeat(65), value: "x" }, /key must be at most 64 characters/],
      [{ key: "has space", value: "x" }, /key may only contain/],
      [{ key: "k", value: 5 }, /value must be a string/],
      [{ key: "k", value: "v".repeat(1001) }, /value must be at most 1000 characters/],
      [{ key: "k", value: "bell\u0007" }, /control characters/],
      [{ key: "k", value: "x", other: 1 }, /other|Unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await merch("/custom-fields", { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(message);
    }
    expect((await merch("/custom-fields", { body: { key: "k", value: "v" } })).status).toBe(401);
    expect(
      (await merch("/custom-fields", { token: await guestToken(), body: { key: "k", value: "v" } }))
        .status,
    ).toBe(403);
    expect(await countRows("custom_fields")).toBe(before);

    for (let i = 0; i < 50; i++)
      expect(
        (await merch("/custom-fields", { token: a.token, body: { key: `k${i}`, value: "v" } }))
          .status,
      ).toBe(201);
    const over = await merch("/custom-fields", {
      token: a.token,
      body: { key: "k50", value: "v" },
    });
    expect(over.status).toBe(400);
    expect(over.body.message).toBe("You can keep at most 50 custom fields; delete one first.");
    // Replacing an existing one is still allowed at the cap.
    expect(
      (await merch("/custom-fields", { token: a.token, body: { key: "k0", value: "w" } })).status,
    ).toBe(200);
  });
});

describe("DELETE /custom-fields", () => {
  it("removes one field by query or JSON body; a missing one is 404", async () => {
    const a = await signUp();
    await merch("/custom-fields", { token: a.token, body: { key: "one", value: "1" } });
    await merch("/custom-fields", { token: a.token, body: { key: "two", value: "2" } });
    const byQuery = await merch("/custom-fields?key=one", { method: "DELETE", token: a.token });
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual({ fields: { two: "2" } });
    const byBody = await merch("/custom-fields", {
      method: "DELETE",
      token: a.token,
      body: { key: "two" },
    });
    expect(byBody.body).toEqual({ fields: {} });
    const missing = await merch("/custom-fields?key=two", { method: "DELETE", token: a.token });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Custom field "two" not found.');
    expect((await merch("/custom-fields", { method: "DELETE", token: a.token })).status).toBe(400);
    expect(
      (await merch("/custom-fields?key=bad%20key", { method: "DELETE", token: a.token })).status,
    ).toBe(400);
    expect((await merch("/custom-fields?key=x", { method: "DELETE" })).status).toBe(401);
  });
});

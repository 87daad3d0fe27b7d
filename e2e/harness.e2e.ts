import { inject, describe, expect, it } from "vitest";

// The harness itself: the product started by global-setup answers like the real thing.
describe("local product", () => {
  it("serves the API and the seeded admin can log in", async () => {
    const base = inject("baseURL");
    const res = await fetch(`${base}/api/user-service/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "admin@hangout.local", password: "admin-password" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: { roles: string[] } };
    expect(body.user.roles).toContain("admin");
  });
});

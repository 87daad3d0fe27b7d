import { describe, expect, it } from "vitest";
import { admin, guestToken, signUp } from "./helpers";
import { auditApi, callFrom, eventWhere } from "./audit-helpers";

// Geolocation from the request's `cf` (country, region, city): /geolocate answers the
// caller's own, and every event a request records carries it with the request's id.

const PARIS = { country: "FR", region: "Île-de-France", city: "Paris" };

describe("GET /geolocate", () => {
  it("answers the caller's own country, region and city from the request's cf, no token needed", async () => {
    const res = await callFrom(
      { ...PARIS, latitude: "48.8", postalCode: "75001" },
      "audit-service/geolocate",
    );
    expect(res.status).toBe(200);
    // Only the three fields: no coordinates, no postcode.
    expect(res.body).toEqual(PARIS);
  });

  it("answers nulls for what cf does not say (locally, cf is absent)", async () => {
    expect((await auditApi("/geolocate")).body).toEqual({
      country: null,
      region: null,
      city: null,
    });
    expect((await callFrom({ country: "JP" }, "audit-service/geolocate")).body).toEqual({
      country: "JP",
      region: null,
      city: null,
    });
  });
});

describe("POST /geolocate", () => {
  it("answers the place and records it as the caller's event, once per hour however often called", async () => {
    const kim = await signUp();
    for (let i = 0; i < 3; i++) {
      const res = await callFrom(PARIS, "audit-service/geolocate", {
        method: "POST",
        token: kim.token,
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ...PARIS, recorded: true });
    }
    const event = await eventWhere((e) => e.userUuid === kim.uuid, "user.geolocate");
    expect(event).toMatchObject({ ...PARIS, actorUuid: kim.uuid, data: PARIS });
    // Give any further sends time to land, then count: one row for the hour.
    await new Promise((r) => setTimeout(r, 300));
    const list = await callFrom(
      {},
      `audit-service/audit-events?userUuid=${kim.uuid}&topic=user.geolocate`,
      {
        token: (await admin()).token,
      },
    );
    expect(list.body.total).toBe(1);
  });

  it("a guest may record their place; no token is a 401 that records nothing", async () => {
    const res = await callFrom(PARIS, "audit-service/geolocate", {
      method: "POST",
      token: await guestToken(),
    });
    expect(res.status).toBe(201);
    expect((await callFrom(PARIS, "audit-service/geolocate", { method: "POST" })).status).toBe(401);
  });
});

describe("every request's events carry its id and place", () => {
  it("a login from Paris records user.login with the cf-ray id and Paris", async () => {
    const kim = await signUp();
    const ray = `8f${crypto.randomUUID().replace(/-/g, "").slice(0, 14)}-CDG`;
    const credentials = { email: kim.email, password: kim.password };
    const res = await callFrom(PARIS, "user-service/auth/login", { body: credentials, ray });
    expect(res.status).toBe(200);
    const event = await eventWhere(
      (e) => e.userUuid === kim.uuid && e.requestId === ray,
      "user.login",
    );
    expect(event).toMatchObject({
      ...PARIS,
      requestId: ray,
      actorUuid: kim.uuid,
      targetUuid: null,
    });
  });

  it("without cf-ray the event carries a generated request id, and null places", async () => {
    const kim = await signUp();
    const event = await eventWhere((e) => e.userUuid === kim.uuid, "user.sign-up");
    expect(event.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.country).toBeNull();
  });
});

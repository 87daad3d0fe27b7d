import { describe, expect, it } from "vitest";
import { signUp } from "./helpers";
import { auditApi, callFrom, eventWhere } from "./audit-helpers";

const PARIS = { country: "FR", region: "Île-de-France", city: "Paris" };

describe("GET /geolocate", () => {
  it("answers the caller's own country, region and city from the request's cf", async () => {
    const res = await callFrom(PARIS, "audit-service/geolocate");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(PARIS);
  });
});

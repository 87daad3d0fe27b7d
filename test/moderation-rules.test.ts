import { describe, expect, it } from "vitest";
import { banMessage, kickNotice, platformRemoval } from "../shared/platform-removal";
import type { UserRole } from "../shared/roles";
import {
  GRANTABLE_ROLES,
  rankOf,
  refusalToAct,
  refusalToChangeRole,
} from "../workers/user-service/moderation-rules";

// The platform hierarchy (issue 15), cell by cell: who may act on whom, and who may grant
// which role. Every moderator-type route asks these two functions.

const as = (uuid: string, ...roles: UserRole[]) => ({
  uuid,
  roles: ["user", ...roles] as UserRole[],
});
const plain = as("plain");
const mod = as("mod", "moderator");
const gmod = as("gmod", "globalModerator");
const adm = as("adm", "admin");
const su = as("su", "superUser");

describe("acting on an account (kick, ban, unban, capabilities, badges, profiles)", () => {
  it("a moderator acts on plain users, staff and promoters, and on nobody at or above them", () => {
    expect(refusalToAct(mod, plain)).toBeNull();
    expect(refusalToAct(mod, as("s", "staff"))).toBeNull();
    expect(refusalToAct(mod, as("p", "promoter"))).toBeNull();
    for (const t of [as("m2", "moderator"), gmod, adm, su])
      expect(refusalToAct(mod, t)).toBe("outranked");
  });

  it("a globalModerator outranks moderators; an admin outranks globalModerators; a superUser outranks admins", () => {
    expect(refusalToAct(gmod, mod)).toBeNull();
    expect(refusalToAct(gmod, adm)).toBe("outranked");
    expect(refusalToAct(adm, gmod)).toBeNull();
    expect(refusalToAct(adm, as("a2", "admin"))).toBe("outranked");
    expect(refusalToAct(su, adm)).toBeNull();
    expect(refusalToAct(su, as("su2", "superUser"))).toBe("outranked");
  });

  it("nobody acts on themselves, whatever their rank", () => {
    for (const a of [mod, gmod, adm, su]) expect(refusalToAct(a, a)).toBe("self");
  });

  it("a plain user, staff, promoter or bot acts on nobody", () => {
    for (const a of [plain, as("s", "staff"), as("p", "promoter"), as("b", "bot")])
      expect(refusalToAct(a, as("x"))).toBe("notModerator");
  });

  it("the highest role counts: a user who is also an admin is an admin", () => {
    expect(rankOf(["user", "moderator", "admin"])).toBe(rankOf(["admin"]));
    expect(refusalToAct(mod, as("mixed", "promoter", "admin"))).toBe("outranked");
  });
});

describe("granting and removing roles", () => {
  it("only a superUser grants or removes admin and superUser", () => {
    expect(refusalToChangeRole(adm, plain, "admin")).toBe("superOnly");
    expect(refusalToChangeRole(adm, plain, "superUser")).toBe("superOnly");
    expect(refusalToChangeRole(su, plain, "admin")).toBeNull();
    expect(refusalToChangeRole(su, adm, "superUser")).toBeNull();
  });

  it("a role strictly below one's own: a moderator grants staff and promoter, not moderator", () => {
    expect(refusalToChangeRole(mod, plain, "staff")).toBeNull();
    expect(refusalToChangeRole(mod, plain, "promoter")).toBeNull();
    expect(refusalToChangeRole(mod, plain, "moderator")).toBe("roleTooHigh");
    expect(refusalToChangeRole(mod, plain, "globalModerator")).toBe("roleTooHigh");
    expect(refusalToChangeRole(gmod, plain, "moderator")).toBeNull();
    expect(refusalToChangeRole(gmod, plain, "globalModerator")).toBe("roleTooHigh");
    expect(refusalToChangeRole(adm, plain, "globalModerator")).toBeNull();
  });

  it("nobody raises (or lowers) themselves, and the target must be outranked too", () => {
    for (const a of [mod, gmod, adm, su])
      for (const r of GRANTABLE_ROLES) expect(refusalToChangeRole(a, a, r)).toBe("self");
    expect(refusalToChangeRole(adm, as("a2", "admin"), "staff")).toBe("outranked");
    expect(refusalToChangeRole(gmod, as("g2", "globalModerator"), "moderator")).toBe("outranked");
  });

  it("user and bot are not grants", () => {
    expect(GRANTABLE_ROLES).not.toContain("user");
    expect(GRANTABLE_ROLES).not.toContain("bot");
  });
});

describe("what a removed person reads", () => {
  it("the web app reads back exactly the ban and kick the server wrote, and nothing else", () => {
    const until = Date.UTC(2027, 0, 2, 3, 4, 5);
    expect(platformRemoval(banMessage({ until, reason: "Spam. Again: links" }))).toEqual({
      kind: "platformBan",
      until: new Date(until).toISOString(),
      reason: "Spam. Again: links",
    });
    expect(platformRemoval(banMessage({ until: null, reason: null }))).toEqual({
      kind: "platformBan",
      until: null,
      reason: null,
    });
    expect(platformRemoval(kickNotice("take a break"))).toEqual({
      kind: "platformKick",
      reason: "take a break",
    });
    // A room's own kick, or a forged prefix with more after it, is not a platform removal.
    expect(platformRemoval("You were kicked from this room.")).toBeNull();
    expect(platformRemoval("Your account is banned until soon")).toBeNull();
  });
});

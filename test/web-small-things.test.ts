import { describe, expect, it } from "vitest";
import {
  insertMention,
  mentionQuery,
  pickNames,
  splitMentions,
} from "../app/components/room/mentions";
import { translate } from "../app/i18n";
import { formatDuration } from "../app/lib/songs";

// The small things of issue 20 that are pure rules: how chat @mentions are found (the same
// rule the room notifies by, durable/room/notices.ts), plurals by Intl.PluralRules, and the
// one duration format.

describe("chat @mentions", () => {
  const names = ["Kim Crate", "Kim", "Lou Listener"];

  it("marks the whole name, the longest that fits, case-insensitive, up to a non-name character", () => {
    expect(splitMentions("hi @kim crate, you're up", names)).toEqual([
      { text: "hi " },
      { text: "@kim crate", mention: "Kim Crate" },
      { text: ", you're up" },
    ]);
    expect(splitMentions("@Kim!", names)).toEqual([
      { text: "@Kim", mention: "Kim" },
      { text: "!" },
    ]);
    // "@Kimberly" names nobody here: a name must end at a non-name character.
    expect(splitMentions("@Kimberly hi", names)).toEqual([{ text: "@Kimberly hi" }]);
    expect(splitMentions("@kim.crate", names)).toEqual([{ text: "@kim.crate" }]);
    expect(splitMentions("no at sign", names)).toEqual([{ text: "no at sign" }]);
  });

  it("opens the picker only for an @ that starts a word, with what follows it", () => {
    expect(mentionQuery("great set @ki", 13)).toEqual({ start: 10, query: "ki" });
    expect(mentionQuery("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionQuery("mail me at a@kim", 16)).toBeNull();
    expect(mentionQuery("@kim\nnext line", 14)).toBeNull();
    expect(mentionQuery(`@${"x".repeat(40)}`, 41)).toBeNull();
  });

  it("offers names that start with the query first, six at most, and inserts '@Name '", () => {
    expect(pickNames(["Lou Listener", "Kim Crate", "Akim"], "ki")).toEqual(["Kim Crate", "Akim"]);
    expect(
      pickNames(
        Array.from({ length: 20 }, (_, i) => `Kim ${i}`),
        "kim",
      ),
    ).toHaveLength(6);
    expect(insertMention("great set @ki and more", 10, 13, "Kim Crate")).toEqual({
      text: "great set @Kim Crate and more",
      caret: 21,
    });
  });
});

describe("plurals (Intl.PluralRules)", () => {
  it("reads 1 token, 2 tokens, in both languages, a formatted count too", () => {
    expect(translate("en", "shop.cost", { count: 1 })).toBe("1 token");
    expect(translate("en", "shop.cost", { count: 2 })).toBe("2 tokens");
    expect(translate("en", "shop.cost", { count: 0 })).toBe("0 tokens");
    expect(translate("en", "shop.balanceLabel", { count: "1" })).toBe("1 token");
    expect(translate("en", "shop.balanceLabel", { count: "1,000" })).toBe("1,000 tokens");
    // A numeric count is written as the language writes numbers.
    expect(translate("en", "room.listeners", { count: 10502 })).toBe("10,502 here");
    expect(translate("es", "room.listeners", { count: 10502 })).toBe("10.502 aquí");
    expect(translate("es", "tokens.balanceValue", { count: 1 })).toBe("1 token");
    expect(translate("es", "tokens.balanceValue", { count: 5 })).toBe("5 tokens");
    expect(translate("en", "tokens.debtValue", { count: 60 })).toBe("You owe 60 tokens");
    expect(translate("es", "room.seats", { count: 1 })).toBe("1 puesto de DJ");
    expect(translate("en", "room.seats", { count: 5 })).toBe("5 DJ seats");
  });

  it("keeps the zero forms", () => {
    expect(translate("en", "deadLetters.replayed", { count: 0 })).toBe("No event was sent again.");
    expect(translate("en", "crate.songCount", { count: 1 })).toBe("1 song");
  });
});

describe("one duration format", () => {
  it("rounds to the nearest second everywhere, so 29.6 s reads 0:30 in every place", () => {
    expect(formatDuration(29.6)).toBe("0:30");
    expect(formatDuration(29.4)).toBe("0:29");
    expect(formatDuration(3599.7)).toBe("1:00:00");
    expect(formatDuration(null)).toBe("–:––");
    expect(formatDuration(-1)).toBe("–:––");
  });
});

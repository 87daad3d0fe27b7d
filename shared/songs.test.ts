import { describe, expect, it } from "vitest";
import { songsMatch, type MatchableSong } from "./songs";

const base: MatchableSong = { trackName: "Blue Monday", artistName: "New Order", duration: 448 };

// The spec's rule as a table: each row is two songs and whether they are the same song.
const cases: [string, MatchableSong, MatchableSong, boolean][] = [
  ["same crateSongUuid", { crateSongUuid: "c1" }, { crateSongUuid: "c1" }, true],
  ["different crateSongUuid only", { crateSongUuid: "c1" }, { crateSongUuid: "c2" }, false],
  ["same songId", { songId: "s1", trackName: "A" }, { songId: "s1", trackName: "B" }, true],
  ["same shortId", { songShortId: "abc" }, { songShortId: "abc" }, true],
  ["same isrc, any case", { isrc: "GBAAA8300001" }, { isrc: "gbaaa8300001" }, true],
  [
    "same provider id",
    { musicProviders: { spotify: "sp1" } },
    { musicProviders: { apple: "x", spotify: "sp1" } },
    true,
  ],
  [
    "same id at different providers",
    { musicProviders: { spotify: "1" } },
    { musicProviders: { apple: "1" } },
    false,
  ],
  [
    "durations within 5 s, names equal ignoring case",
    base,
    { trackName: "blue monday", artistName: "NEW ORDER", duration: 453 },
    true,
  ],
  ["exactly 5 s apart", base, { ...base, duration: 443 }, true],
  ["6 s apart", base, { ...base, duration: 454 }, false],
  [
    "same names, no durations",
    { trackName: "A", artistName: "B" },
    { trackName: "a", artistName: "b" },
    false,
  ],
  ["other artist", base, { ...base, artistName: "Joy Division" }, false],
  ["other track", base, { ...base, trackName: "Temptation" }, false],
  ["empty ids never match", { songId: "", isrc: "" }, { songId: "", isrc: "" }, false],
  [
    "nulls never match",
    { songId: null, crateSongUuid: null },
    { songId: null, crateSongUuid: null },
    false,
  ],
  [
    "zero-length durations equal, names equal",
    { trackName: "x", artistName: "y", duration: 0 },
    { trackName: "X", artistName: "Y", duration: 0 },
    true,
  ],
];

describe("songsMatch", () => {
  it.each(cases)("%s", (_name, a, b, expected) => {
    expect(songsMatch(a, b)).toBe(expected);
    expect(songsMatch(b, a)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { buildAccessToken2, rtcService, type AgoraService } from "../workers/lib/agora-token";

/**
 * Agora's own published sample values (AgoraIO/Tools, DynamicKey/AgoraDynamicKey/nodejs/test/
 * AccessToken2Test.js): the same app id, certificate, channel, uid, issue time, expiry and
 * salt must give byte for byte the tokens Agora's builder gives.
 */
const appId = "970CA35de60c44645bbae8a215061b33";
const appCertificate = "5CFd2fd1755d40ecb72977518be15d3b";
const channel = "7d72365eb983485397e3e3f9d460bdda";
const uid = "2882341273";
const issueTs = 1111111;
const expire = 600;
const salt = 1;

const build = (services: AgoraService[]) =>
  buildAccessToken2({ appId, appCertificate, issueTs, expire, salt, services });

describe("AccessToken2 against Agora's published samples", () => {
  it("an RTC join token for a numeric uid", async () => {
    expect(await build([rtcService(channel, uid, "SUBSCRIBER", expire)])).toBe(
      "007eJxTYBBbsMMnKq7p9Hf/HcIX5kce9b518kCiQgSr5Zrp4X1Tu6UUGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiVwMRhYWRsYmhkbmxgDCaiTj",
    );
  });

  it("an RTC join token for uid 0 (the empty account)", async () => {
    expect(await build([rtcService(channel, "", "SUBSCRIBER", expire)])).toBe(
      "007eJxTYLhzZP08Lxa1Pg57+TcXb/3cZ3wi4V6kbpbOog0G2dOYk20UGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiQwMADacImo=",
    );
  });

  it("a publisher's privileges plus an RTM login, services packed in type order", async () => {
    const rtm: AgoraService = { type: 2, privileges: { 1: expire }, strings: ["test_user"] };
    // The RTM service is given first: the builder sorts services by type before packing.
    expect(await build([rtm, rtcService(channel, uid, "PUBLISHER", expire)])).toBe(
      "007eJxTYOAQsrQ5s3TfH+1tvy8zZZ46EpCc0V43JXdGd2jS8porKo4KDJbmBs6OxqYpqWYGySYmZiamSUmJqRaJRoamBmaGScbG7l8EGCKYGBgYGRgYmBgYGVgYGMF8JjDJDCZZwKQCg3mKuZGxmWlqkqWFsYmFqbGleapxqnGaZYqJmUFSSkoiF4ORhYWRsYmhkbkxyCyISZwMJanFJfGlxalFACKnKng=",
    );
  });

  it("a chat user token", async () => {
    const chat: AgoraService = { type: 5, privileges: { 1: expire }, strings: [uid] };
    expect(await build([chat])).toBe(
      "007eJxTYNAIsnbS3v/A5t2TC6feR15r+6cq8bqAvfaW+tk/Vzz+p6xTYLA0N3B2NDZNSTUzSDYxMTMxTUpKTLVINDI0NTAzTDI2dv8iwBDBxMDAyADCrAyMDIxgPheDkYWFkbGJoZG5MQAfpR64",
    );
  });

  it("refuses an app id or certificate that is not 32 hex digits", async () => {
    await expect(
      buildAccessToken2({
        appId: "not-an-app-id",
        appCertificate,
        issueTs,
        expire,
        services: [rtcService(channel, uid, "SUBSCRIBER", expire)],
      }),
    ).rejects.toThrow(/32 hexadecimal/);
  });
});

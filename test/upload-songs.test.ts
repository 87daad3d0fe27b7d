import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { songFiles, songs, users } from "../workers/db/schema";
import { signToken } from "../workers/lib/jwt";
import { SONG_MSG } from "../workers/songs/messages";
import { MSG as UPLOAD_MSG } from "../workers/upload-service/messages";
import { MAX_SONG_BYTES } from "../workers/upload-service/uploads";
import { guestToken, signUp } from "./helpers";
import {
  concat,
  flac,
  id3Tag,
  id3Text,
  mp3,
  namedTag,
  sameBytes,
  songKeys,
  songRowCounts,
  streamUpload,
  transcoderReport,
  svc,
  uploadSong,
  wav,
} from "./songs-helpers";

const MB = 1024 * 1024;
const fileRow = async (songId: string) =>
  (
    await db(env)
      .select({ f: songFiles })
      .from(songFiles)
      .innerJoin(songs, eq(songs.id, songFiles.songId))
      .where(eq(songs.songId, songId))
      .get()
  )?.f;

/** Runs `fn` and proves it left D1's song tables and R2's songs/ prefix as they were. */
async function writesNothing(fn: () => Promise<void>) {
  const [rows, keys] = [await songRowCounts(), await songKeys()];
  await fn();
  expect(await songRowCounts()).toEqual(rows);
  expect(await songKeys()).toEqual(keys);
}

describe("POST /upload/song: stored, indexed and verified", () => {
  it("answers 201 with a VERIFIED SongDto for an MP3 whose ID3 tag names it, and stores the exact bytes", async () => {
    const a = await signUp();
    const tag = namedTag("Thirty Seconds", "The Testers");
    const bytes = mp3(30, tag);
    const res = await uploadSong(a.token, bytes);
    expect(res.status).toBe(201);
    const { songId } = res.body;
    expect(res.body).toEqual({
      songId,
      songShortId: expect.stringMatching(/^[0-9A-Za-z]{10}$/),
      isrc: null,
      trackName: "Thirty Seconds",
      artistName: "The Testers",
      genre: null,
      duration: 30,
      explicit: false,
      releaseYear: null,
      albumName: null,
      status: "VERIFIED",
      musicProviders: { uploadService: songId },
      thumbnails: {},
      links: {},
      previews: [],
      streamUrls: { uploadService: `/api/upload-service/songs/${songId}/hls-playlist` },
      ownerUuid: a.uuid,
      isPublic: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      detail: null,
    });
    const object = await env.UPLOADS.get(`songs/${songId}/original`);
    expect(object?.httpMetadata?.contentType).toBe("audio/mpeg");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytes);
    const file = await fileRow(songId);
    expect(file).toMatchObject({
      r2Key: `songs/${songId}/original`,
      contentType: "audio/mpeg",
      size: bytes.length,
      detail: null,
    });
    expect(file!.segments!.length).toBe(5);
    expect(file!.segments![0].offset).toBe(tag.length);
  });

  it("lets form fields win over the tag, and takes album, genre, year and isPublic", async () => {
    const a = await signUp();
    const tag = id3Tag(4, [
      id3Text(4, "TIT2", "Tag Title", "utf8"),
      id3Text(4, "TPE1", "Tag Artist"),
      id3Text(4, "TALB", "Tag Album"),
      id3Text(4, "TCON", "(8)"),
      id3Text(4, "TDRC", "2019-02-03"),
    ]);
    const res = await uploadSong(a.token, mp3(7, tag), {
      trackName: "  Form Title ",
      artistName: "",
      isPublic: "true",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      trackName: "Form Title",
      artistName: "Tag Artist",
      albumName: "Tag Album",
      genre: "Jazz",
      releaseYear: 2019,
      isPublic: true,
      status: "VERIFIED",
      duration: 7,
    });
  });

  it("streams a file over one R2 part (5 MiB) through a multipart upload, byte for byte", async () => {
    const a = await signUp();
    const bytes = mp3(6 * 60, namedTag("Six Minutes", "Long Player"));
    expect(bytes.length).toBeGreaterThan(5 * MB);
    const res = await uploadSong(a.token, bytes);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "VERIFIED", duration: 360 });
    const object = await env.UPLOADS.get(`songs/${res.body.songId}/original`);
    expect(object!.size).toBe(bytes.length);
    expect(sameBytes(new Uint8Array(await object!.arrayBuffer()), bytes)).toBe(true);
  }, 30_000);

  it("takes exactly 50 MB streamed without a Content-Length, and refuses 50 MB + 1 byte with 413, keeping nothing", async () => {
    const a = await signUp();
    const ok = await streamUpload(a.token, MAX_SONG_BYTES);
    expect(ok.status).toBe(201);
    const song = (await ok.json()) as { songId: string; trackName: string };
    expect(song.trackName).toBe("Big");
    expect((await env.UPLOADS.head(`songs/${song.songId}/original`))!.size).toBe(MAX_SONG_BYTES);
    await writesNothing(async () => {
      const res = await streamUpload(a.token, MAX_SONG_BYTES + 1);
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        statusCode: 413,
        message: "file must be at most 50 MB.",
        error: "Payload Too Large",
      });
      // A declared Content-Length that cannot fit is refused before the body is read.
      const declared = await uploadSong(a.token, new Uint8Array(MAX_SONG_BYTES + 100 * 1024));
      expect(declared.status).toBe(413);
      expect(declared.body.message).toBe("file must be at most 50 MB.");
    });
  }, 60_000);

  it("lets a bot upload", async () => {
    const owner = await signUp();
    const bot = await signUp();
    await db(env)
      .update(users)
      .set({ roles: ["bot"] })
      .where(eq(users.uuid, bot.uuid));
    const token = await signToken(env, { sub: bot.uuid, type: "bot", roles: ["bot"] });
    const res = await uploadSong(token, mp3(3, namedTag("Bot Song", "Robot")));
    expect(res.status).toBe(201);
    expect(res.body.ownerUuid).toBe(bot.uuid);
    expect(res.body.ownerUuid).not.toBe(owner.uuid);
  });
});

describe("POST /upload/song: refused, leaving nothing in R2 or D1", () => {
  it("is 415 for a PNG named .mp3, a text file, and ADTS AAC", async () => {
    const a = await signUp();
    const png = new Uint8Array([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      0,
      0,
      0,
      13,
      0x49,
      0x48,
      0x44,
      0x52,
      ...new Uint8Array(100),
    ]);
    const aac = new Uint8Array([0xff, 0xf1, 0x50, 0x80, ...new Uint8Array(200)]);
    await writesNothing(async () => {
      for (const bytes of [
        png,
        new TextEncoder().encode("definitely not a song, just words"),
        aac,
      ]) {
        const res = await uploadSong(a.token, bytes, { trackName: "x" }, "song.mp3", "audio/mpeg");
        expect(res.status).toBe(415);
        expect(res.body).toEqual({
          statusCode: 415,
          message: "file must be a MP3, WAV, FLAC, Ogg or M4A file.",
          error: "Unsupported Media Type",
        });
      }
    });
  });

  it("is 400 with a message for bad input", async () => {
    const a = await signUp();
    const song = mp3(2);
    const raw = (body: string) =>
      svc("/upload/song", {
        method: "POST",
        token: a.token,
        body,
        headers: { "Content-Type": "multipart/form-data; boundary=b" },
      });
    const twoFiles = new FormData();
    twoFiles.append("file", new File([song], "a.mp3"));
    twoFiles.append("file", new File([song], "b.mp3"));
    const cases: [Promise<{ status: number; body: { message: string | string[] } }>, string][] = [
      [
        svc("/upload/song", { method: "POST", token: a.token, body: { file: "x" } }),
        UPLOAD_MSG.notMultipart,
      ],
      [uploadSong(a.token, undefined, { trackName: "No file" }), UPLOAD_MSG.fileRequired],
      [uploadSong(a.token, undefined, { file: "just text" }), UPLOAD_MSG.fileRequired],
      [uploadSong(a.token, new Uint8Array(0)), UPLOAD_MSG.fileEmpty],
      [uploadSong(a.token, song, { mood: "happy" }), UPLOAD_MSG.unknownField("mood")],
      [uploadSong(a.token, song, { isPublic: "yes" }), "isPublic must be true or false"],
      [
        uploadSong(a.token, song, { trackName: "x".repeat(201) }),
        "trackName must be at most 200 characters",
      ],
      [uploadSong(a.token, song, { genre: "g".repeat(51) }), "genre must be at most 50 characters"],
      [svc("/upload/song", { method: "POST", token: a.token, body: twoFiles }), UPLOAD_MSG.oneFile],
      [
        raw(
          '--b\r\nContent-Disposition: form-data; name="cover"; filename="c.png"\r\n\r\nxx\r\n--b--',
        ),
        UPLOAD_MSG.unexpectedFile("cover"),
      ],
      [
        raw('--b\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\nabc'),
        "Malformed multipart body: a part is not closed by its boundary.",
      ],
    ];
    await writesNothing(async () => {
      for (const [call, message] of cases) {
        const res = await call;
        expect(res.status, message).toBe(400);
        expect([res.body.message].flat(), message).toContain(message);
      }
    });
  });

  it("checks fields sent after the file too, and then removes the stored file", async () => {
    const a = await signUp();
    const f = new FormData();
    f.append("file", new File([mp3(3)], "a.mp3"));
    f.append("releaseYear", "1999");
    await writesNothing(async () => {
      const res = await svc("/upload/song", { method: "POST", token: a.token, body: f });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(UPLOAD_MSG.unknownField("releaseYear"));
      const late = new FormData();
      late.append("file", new File([mp3(3)], "a.mp3"));
      late.append("artistName", " ");
      late.append("isPublic", "maybe");
      expect(
        (await svc("/upload/song", { method: "POST", token: a.token, body: late })).body.message,
      ).toBe("isPublic must be true or false");
    });
  });

  it("is 401 without a token and 403 for a guest", async () => {
    await writesNothing(async () => {
      expect((await uploadSong(undefined, mp3(2))).status).toBe(401);
      const guest = await uploadSong(await guestToken(), mp3(2));
      expect(guest.status).toBe(403);
      expect(guest.body.message).toBe("Guests cannot do this; please sign up or log in.");
    });
  });
});

describe("statuses after upload", () => {
  it("MISSING_METADATA without names, then VERIFIED once the owner supplies both through POST /metadata", async () => {
    const a = await signUp();
    const other = await signUp();
    const up = await uploadSong(a.token, mp3(10));
    expect(up.body).toMatchObject({
      status: "MISSING_METADATA",
      trackName: "",
      artistName: "",
      duration: 10,
      detail: null,
    });
    const { songId } = up.body;
    expect((await svc(`/songs/${songId}/hls-playlist`, { token: a.token })).body.message).toBe(
      SONG_MSG.notVerified,
    );
    const stolen = await svc("/metadata", {
      token: other.token,
      body: { songId, trackName: "Mine", artistName: "Me" },
    });
    expect(stolen.status).toBe(403);
    expect(stolen.body).toEqual({
      statusCode: 403,
      message: "Unauthorized to edit tags that not belongs to the user.",
      error: "Forbidden",
    });
    const half = await svc("/metadata", { token: a.token, body: { songId, trackName: "Named" } });
    expect(half.status).toBe(200);
    expect(half.body).toMatchObject({ trackName: "Named", status: "MISSING_METADATA" });
    const done = await svc("/metadata", {
      token: a.token,
      body: {
        songId,
        artistName: "Finally",
        releaseYear: 2024,
        isrc: "usrc17607839",
        explicit: true,
      },
    });
    expect(done.body).toMatchObject({
      trackName: "Named",
      artistName: "Finally",
      releaseYear: 2024,
      isrc: "USRC17607839",
      explicit: true,
      status: "VERIFIED",
    });
    expect(done.body.streamUrls.uploadService).toBe(
      `/api/upload-service/songs/${songId}/hls-playlist`,
    );
  });

  it("VERIFICATION_ERROR for an 'MP3' with no frames, with the reason for its owner", async () => {
    const a = await signUp();
    const res = await uploadSong(
      a.token,
      concat(namedTag("Broken", "File"), new Uint8Array(5000).fill(0x41)),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: "VERIFICATION_ERROR",
      detail: UPLOAD_MSG.noFrames,
      duration: 0,
      trackName: "Broken",
    });
    expect((await fileRow(res.body.songId))!.segments).toBeNull();
  });

  it("VERIFICATION_POSTPONED for WAV until the transcoder reports COMPLETE (signed reports only), then VERIFIED", async () => {
    const a = await signUp();
    const up = await uploadSong(
      a.token,
      wav(),
      { trackName: "Wave", artistName: "Form" },
      "song.wav",
      "audio/wav",
    );
    expect(up.body).toMatchObject({
      status: "VERIFICATION_POSTPONED",
      detail: UPLOAD_MSG.postponed("WAV"),
    });
    const { songId } = up.body;
    const rendition = `songs/${songId}/rendition.mp3`;
    const report = { songId, status: "COMPLETE", mp3Key: rendition };
    const cb = (body: unknown) => transcoderReport(body);
    // Unsigned, signed with another secret, a tampered signature, a stale one: all 401.
    for (const forged of [
      transcoderReport(report, { signature: null }),
      transcoderReport(report, { secret: "wrong" }),
      transcoderReport(report, { signature: "t=1,v1=" + "0".repeat(64) }),
      transcoderReport(report, { at: Math.floor(Date.now() / 1000) - 3600 }),
    ]) {
      const res = await forged;
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(UPLOAD_MSG.badTranscoderSignature);
    }
    expect((await cb({ ...report, mp3Key: "songs/other/x.mp3" })).body.message).toBe(
      `mp3Key must be under songs/${songId}/`,
    );
    expect((await cb({ songId, status: "COMPLETE" })).body.message).toBe(
      "mp3Key is required when status is COMPLETE",
    );
    expect((await cb({ ...report, status: "DONE" })).status).toBe(400);
    expect(
      (await cb({ ...report, songId: crypto.randomUUID(), mp3Key: undefined, status: "ERROR" }))
        .status,
    ).toBe(404);
    const missing = await cb(report);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe(UPLOAD_MSG.mp3KeyMissing);
    expect((await svc(`/songs/${songId}`, { token: a.token })).body.status).toBe(
      "VERIFICATION_POSTPONED",
    );

    await env.UPLOADS.put(rendition, mp3(12, namedTag("Rendition Title", "Rendition Artist")));
    const res = await cb(report);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ songId, status: "VERIFIED" });
    const after = (await svc(`/songs/${songId}`, { token: a.token })).body;
    expect(after).toMatchObject({
      status: "VERIFIED",
      duration: 12,
      trackName: "Wave",
      artistName: "Form",
      detail: null,
    });
    expect(await fileRow(songId)).toMatchObject({ r2Key: rendition, contentType: "audio/mpeg" });
    // Idempotent: the same report again, or a late ERROR, changes nothing.
    expect((await cb(report)).body).toEqual({ songId, status: "VERIFIED" });
    expect((await cb({ songId, status: "ERROR" })).body).toEqual({ songId, status: "VERIFIED" });
    expect((await svc(`/songs/${songId}`, { token: a.token })).body).toEqual(after);
    // Deleting removes the original and the rendition.
    expect((await svc(`/songs/${songId}`, { method: "DELETE", token: a.token })).status).toBe(200);
    expect((await env.UPLOADS.list({ prefix: `songs/${songId}/` })).objects).toEqual([]);
  });

  it("takes names from the rendition's tag when the form had none, and ERROR gives VERIFICATION_ERROR", async () => {
    const a = await signUp();
    const f1 = (await uploadSong(a.token, flac(), {}, "a.flac", "audio/flac")).body.songId;
    await env.UPLOADS.put(`songs/${f1}/r.mp3`, mp3(4, namedTag("From Tag", "Tagger")));
    const ok = await transcoderReport({
      songId: f1,
      status: "COMPLETE",
      mp3Key: `songs/${f1}/r.mp3`,
    });
    expect(ok.body.status).toBe("VERIFIED");
    expect((await svc(`/songs/${f1}`, { token: a.token })).body).toMatchObject({
      trackName: "From Tag",
      artistName: "Tagger",
      duration: 4,
    });
    const f2 = (await uploadSong(a.token, flac(), {}, "b.flac", "audio/flac")).body.songId;
    await env.UPLOADS.put(`songs/${f2}/r.mp3`, mp3(4));
    expect(
      (
        await transcoderReport({
          songId: f2,
          status: "COMPLETE",
          mp3Key: `songs/${f2}/r.mp3`,
        })
      ).body.status,
    ).toBe("MISSING_METADATA");
    const f3 = (await uploadSong(a.token, flac(), {}, "c.flac", "audio/flac")).body.songId;
    const err = await transcoderReport({
      songId: f3,
      status: "ERROR",
      detail: "Unsupported sample format",
    });
    expect(err.body).toEqual({ songId: f3, status: "VERIFICATION_ERROR" });
    expect((await svc(`/songs/${f3}`, { token: a.token })).body).toMatchObject({
      status: "VERIFICATION_ERROR",
      detail: "Unsupported sample format",
    });
  });
});

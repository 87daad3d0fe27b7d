import { describe, expect, it } from "vitest";
import { moveByPosition } from "../app/lib/crate-order";
import { pl, seedSong } from "./crate-helpers";
import { addCrate } from "./music-stubs";
import { guestToken, signUp } from "./helpers";
import { id3Tag, id3Text, mp3, svc, uploadSong } from "./songs-helpers";

/**
 * Issue 18: genres, artists and albums fill from uploads (form fields or ID3 tags) once
 * public and verified, so their calls and the upload page's genre suggestions answer;
 * and a crate move names the server position, whatever the reader cannot see.
 */
const tag = () => crypto.randomUUID().slice(0, 8);
const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((x) => x.name);

describe("genres, artists and albums from uploads", () => {
  it("a public upload's ID3 genre, artist and album are listed; a private one's are not", async () => {
    const a = await signUp();
    const t = tag();
    const tags = (genre: string, artist: string, album: string) =>
      id3Tag(
        3,
        [
          id3Text(3, "TIT2", `Song ${t}`),
          id3Text(3, "TPE1", artist),
          id3Text(3, "TALB", album),
          id3Text(3, "TCON", genre),
        ],
        16,
      );
    const pub = await uploadSong(a.token, mp3(3, tags(`Zydeco ${t}`, `Band ${t}`, `Disc ${t}`)), {
      isPublic: "true",
    });
    expect(pub.body.status).toBe("VERIFIED");
    const priv = await uploadSong(
      a.token,
      mp3(3, tags(`Secret ${t}`, `Hidden ${t}`, `Sealed ${t}`)),
    );
    expect(priv.body.status).toBe("VERIFIED");
    const token = await guestToken();
    // The upload page's suggestions: genres by prefix, ignoring case.
    expect(names(await pl(`/api/v1/genres?prefix=zydeco ${t}`, { token }))).toEqual([
      `Zydeco ${t}`,
    ]);
    expect(names(await pl(`/api/v1/genres?prefix=secret ${t}`, { token }))).toEqual([]);
    const artists = names(await pl("/artists?take=100", { token }));
    const albums = await pl("/albums?take=100", { token });
    expect(artists).toContain(`Band ${t}`);
    expect(artists).not.toContain(`Hidden ${t}`);
    expect(albums.body.data).toContainEqual(
      expect.objectContaining({ name: `Disc ${t}`, artistName: `Band ${t}` }),
    );
    expect(names(albums)).not.toContain(`Sealed ${t}`);
    // Made public later, the private one's genre joins; a second song in the genre adds no row.
    expect(
      (
        await svc(`/songs/${priv.body.songId}`, {
          method: "PATCH",
          token: a.token,
          body: { isPublic: true },
        })
      ).status,
    ).toBe(200);
    expect(names(await pl(`/api/v1/genres?prefix=secret ${t}`, { token }))).toEqual([
      `Secret ${t}`,
    ]);
    await uploadSong(a.token, mp3(3, tags(`ZYDECO ${t}`, `Band ${t}`, `Disc ${t}`)), {
      isPublic: "true",
    });
    expect(names(await pl(`/api/v1/genres?prefix=zydeco ${t}`, { token }))).toEqual([
      `Zydeco ${t}`,
    ]);
  });
});

describe("moveByPosition (crate reorder with hidden songs)", () => {
  // The reader sees positions 0, 2, 3, 5: 1 and 4 are hidden from them.
  const seen = [0, 2, 3, 5].map((position) => ({ id: `p${position}`, position }));

  it("sends the target's server position, not its index in the visible list", () => {
    const down = moveByPosition(seen, 0, 2);
    expect(down.newPosition).toBe(3);
    expect(down.list.map((s) => s.id)).toEqual(["p2", "p3", "p0", "p5"]);
    // Positions follow the server's shift: the hidden song at 1 steps up to 0 too.
    expect(down.list.map((s) => s.position)).toEqual([1, 2, 3, 5]);
    const up = moveByPosition(seen, 3, 1);
    expect(up.newPosition).toBe(2);
    expect(up.list.map((s) => s.id)).toEqual(["p0", "p5", "p2", "p3"]);
    expect(up.list.map((s) => s.position)).toEqual([0, 2, 3, 4]);
    expect(moveByPosition(seen, 1, 1).newPosition).toBe(2);
  });

  it("lands where the reader dropped it on the server, hidden songs and all", async () => {
    const me = await signUp();
    const visible = await Promise.all([0, 1, 2, 3].map(() => seedSong()));
    // Someone else's private upload, in my crate since it was public: I cannot see it.
    const hidden = await Promise.all(
      [0, 1].map(() => seedSong({ ownerUuid: crypto.randomUUID(), isPublic: false })),
    );
    const [a, b, c, d] = visible;
    const crate = await addCrate(me.uuid, [a.id, hidden[0].id, b.id, c.id, hidden[1].id, d.id]);
    const base = `/crate/${crate.crateUuid}/songs`;
    const list = async () =>
      (await pl(`${base}?limit=100`, { token: me.token })).body.data as {
        songId: string;
        crateSongUuid: string;
        position: number;
      }[];
    const before = await list();
    expect(before.map((s) => s.songId)).toEqual([a.songId, b.songId, c.songId, d.songId]);
    // Drag a (index 0) onto c (index 2), then d (index 3) onto b (index 1), as the page does.
    let local = before;
    for (const [from, to] of [
      [0, 2],
      [3, 1],
    ]) {
      const moved = local[from];
      const next = moveByPosition(local, from, to);
      local = next.list;
      const res = await pl(`${base}/${moved.crateSongUuid}/position`, {
        method: "PUT",
        token: me.token,
        body: { newPosition: next.newPosition },
      });
      expect(res.status).toBe(200);
    }
    const after = await list();
    expect(after.map((s) => s.songId)).toEqual(local.map((s) => s.songId));
    expect(after.map((s) => s.position)).toEqual(local.map((s) => s.position));
  });
});

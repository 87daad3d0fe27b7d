import { spawn } from "node:child_process";
import { SocketClient } from "ttfm-socket";
import { describe, expect, inject, it } from "vitest";
import { applyPatch, type JsonPatchOp } from "../shared/json-patch";
import { benchOurs } from "../bench/lib/room-storm.mjs";
import { api, logIn, shot, tokenFor, useBrowser } from "./browser";

// tt.live bots (issue 17): the public `ttfm-socket` 1.0.0 client, unchanged, against the dev
// server, next to a real browser page in the same room.
const KIM = "kim@hangout.local";
const LOU = "lou@hangout.local";

const getBrowser = useBrowser();

interface Doc {
  djs: { uuid: string }[];
  allUsers: { uuid: string }[];
  allUserData: Record<string, { userProfile: { nickname: string }; songVotes: { star?: boolean } }>;
  nowPlaying: { song: { trackName: string } } | null;
  voteCounts: { likes: number; dislikes: number; stars: number };
}

/** A bot Lou owns (sign-up-bot), its long-lived bot token and uuid. */
async function makeBot(): Promise<{ token: string; uuid: string }> {
  const tag = Date.now().toString(36);
  const email = `lou+b${tag}@hangout.local`;
  const password = `bot-password-${tag}`;
  const made = await api<{ uuid: string }>("/api/user-service/users/sign-up-bot", {
    method: "POST",
    token: await tokenFor(LOU),
    body: JSON.stringify({ email, password, nickname: `Bot ${tag}` }),
  });
  const session = await tokenFor(email, password);
  const { token } = await api<{ token: string }>("/api/user-service/users/bot-token", {
    token: session,
  });
  return { token, uuid: made.uuid };
}

/** Polls `f` until it holds (the client's events arrive on their own schedule). */
async function until(f: () => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("tt.live bots: the real ttfm-socket client", () => {
  it("joins by slug, seats, plays, votes, chats with a browser page that agrees; kicked, it does not reconnect", async () => {
    const bot = await makeBot();
    const demo = (
      await api<{ data: { songId: string; status: string }[] }>(
        "/api/upload-service/songs/public?limit=50",
      )
    ).data.filter((s) => s.status === "VERIFIED");
    await api("/api/playlist-service/crate/queue/songs", {
      method: "POST",
      token: bot.token,
      body: JSON.stringify({ songId: demo[0].songId }),
    });
    const kimToken = await tokenFor(KIM);
    const room = await api<{ uuid: string; slug: string }>(
      "/api/room-service/rooms/infrastructure",
      {
        method: "POST",
        token: kimToken,
        body: JSON.stringify({ name: `Bots ${Date.now().toString(36)}`, design: "CLUB" }),
      },
    );

    // A bad token: the join rejects with a string and the client is told to stop.
    const stranger = new SocketClient(inject("baseURL"));
    const refusal = await stranger.joinRoom("not-a-token", { roomUuid: room.uuid }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(typeof refusal).toBe("string");
    stranger.disconnect();

    const client = new SocketClient(inject("baseURL"));
    const { state } = await client.joinRoom(bot.token, { roomUuid: room.slug });
    // As the client's README does it: listeners attached after the join resolved.
    let doc = state as unknown as Doc;
    const failures: string[] = [];
    let patches = 0;
    const chats: string[] = [];
    const events: string[] = [];
    client.on("statefulMessage", (m: { name: string; statePatch: JsonPatchOp[] }) => {
      try {
        doc = applyPatch(doc as never, m.statePatch) as unknown as Doc;
        patches++;
      } catch (e) {
        failures.push(`${m.name}: ${String(e)}`);
      }
    });
    // chatMessage is ours: the client's types do not name it (it emits unknown names too).
    client.on("statelessMessage", (raw) => {
      const m = raw as unknown as { name: string; params?: { message?: string } };
      events.push(m.name);
      if (m.name === "chatMessage") chats.push(m.params?.message ?? "");
    });
    for (const e of ["reconnect", "disconnected", "connected"] as const)
      client.on(e, () => void events.push(e));
    expect(client.roomUuid).toBe(room.uuid);
    await until(() => bot.uuid in doc.allUserData, "updatedUserData");

    const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
    const kim = await logIn(ctx, KIM, `/rooms/${room.slug}`);
    await until(() => doc.allUsers.length === 2, "Kim in the bot's room");
    const kimUuid = doc.allUsers.find((u) => u.uuid !== bot.uuid)!.uuid;

    await client.action(
      "addDj" as never,
      {
        song: { trackName: "Bot Pick", artistName: "Bots", duration: 200, songShortId: "botpick" },
      } as never,
    );
    await until(() => doc.djs[0]?.uuid === bot.uuid && doc.nowPlaying !== null, "the bot playing");
    await expect
      .poll(() => kim.getByTestId("np-track").textContent(), { timeout: 15_000 })
      .toBe(doc.nowPlaying!.song.trackName);
    expect(await kim.getByTestId("dj-seat").count()).toBe(1);

    await client.action("voteOnSong" as never, { songVotes: { like: true } } as never);
    await expect
      .poll(() => kim.getByTestId("vote-like-count").textContent(), { timeout: 10_000 })
      .toBe("1");
    await kim.getByTestId("vote-star").click();
    await until(() => doc.allUserData[kimUuid]?.songVotes.star === true, "Kim's star");
    expect(doc.voteCounts).toMatchObject({ likes: 1, stars: 1 });

    await kim.getByTestId("chat-input").fill("hello bot");
    await kim.getByTestId("chat-input").press("Enter");
    await until(() => chats.includes("hello bot"), "Kim's chat line");
    await client.action("sendChat" as never, { message: "hello Kim" } as never);
    await expect
      .poll(() => kim.getByTestId("chat-line").filter({ hasText: "hello Kim" }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await shot(kim, "bots-01-room-with-bot-1440");
    expect(failures).toEqual([]);
    expect(patches).toBeGreaterThan(3);

    // Kim kicks the bot: kickedFromRoom, then the server's close; no reconnect follows.
    await api("/api/room-service/roomUserRoles/kick-user-from-room", {
      method: "POST",
      token: kimToken,
      body: JSON.stringify({ roomId: room.uuid, userUuid: bot.uuid, reason: "test over" }),
    });
    await until(() => events.includes("kickedFromRoom"), "the kick");
    await until(() => events.includes("disconnected"), "the close");
    await new Promise((r) => setTimeout(r, 2500));
    expect(events.filter((e) => e === "reconnect")).toEqual([]);
    expect(client.state).toBe("disconnected");
    client.disconnect();
    await ctx.close();
  });

  it("the rooms bench's storm with half the sockets bots: every vote counted, delivered to all", async () => {
    const dj = await makeBot();
    const demo = (
      await api<{ data: { songId: string; status: string }[] }>(
        "/api/upload-service/songs/public?limit=50",
      )
    ).data.filter((s) => s.status === "VERIFIED");
    for (const s of demo.slice(0, 2))
      await api("/api/playlist-service/crate/queue/songs", {
        method: "POST",
        token: dj.token,
        body: JSON.stringify({ songId: s.songId }),
      });
    const voterTokens = await Promise.all(
      [LOU, KIM, "mod@hangout.local", "dj.sam@hangout.local"].map((e) =>
        e === "mod@hangout.local" ? tokenFor(e, "moderator-password") : tokenFor(e),
      ),
    );
    const lines: string[] = [];
    const r = await benchOurs({
      base: inject("baseURL"),
      n: 4,
      rate: 20,
      voterTokens,
      djToken: dj.token,
      bareMsgs: 10,
      drainMs: 10_000,
      log: (l: string) => lines.push(l),
      halfBots: true,
    });
    expect(r, lines.join("\n")).toMatchObject({
      sockets: 4,
      bots: 2,
      votesSent: 6,
      votesAccepted: 6,
      errorsReplied: 0,
      completeDelivery: true,
      seqGaps: 0,
      finalVoteCounts: { likes: 4, dislikes: 0 },
    });
  });

  it("npm run bot: the README's bot greets Kim by name and likes the song she plays", async () => {
    const kimToken = await tokenFor(KIM);
    const demo = (
      await api<{ data: { songId: string; status: string }[] }>(
        "/api/upload-service/songs/public?limit=50",
      )
    ).data.filter((s) => s.status === "VERIFIED");
    await api("/api/playlist-service/crate/queue/clear", { method: "DELETE", token: kimToken });
    await api("/api/playlist-service/crate/queue/songs", {
      method: "POST",
      token: kimToken,
      body: JSON.stringify({ songId: demo[0].songId }),
    });
    const room = await api<{ slug: string }>("/api/room-service/rooms/infrastructure", {
      method: "POST",
      token: kimToken,
      body: JSON.stringify({ name: `Greeter ${Date.now().toString(36)}`, design: "CLUB" }),
    });
    const child = spawn(process.execPath, ["scripts/bot.mjs", room.slug], {
      env: { ...process.env, HANGOUT_URL: inject("baseURL") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    try {
      await until(() => out.includes("joined"), `the bot's join (${out})`);
      const ctx = await getBrowser().newContext({ viewport: { width: 1440, height: 900 } });
      const kim = await logIn(ctx, KIM, `/rooms/${room.slug}`);
      const greeting = kim.getByTestId("chat-line").filter({ hasText: "Welcome, Kim" });
      await expect.poll(() => greeting.count(), { timeout: 15_000 }).toBe(1);
      await kim.getByTestId("take-seat").click();
      await expect
        .poll(() => kim.getByTestId("vote-like-count").textContent(), { timeout: 15_000 })
        .toBe("1");
      await shot(kim, "bots-02-greeter-1440");
      await ctx.close();
    } finally {
      child.kill();
    }
  });
});

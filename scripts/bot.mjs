// `npm run bot -- <room uuid or slug>`: a tt.live bot, written against the public
// `ttfm-socket` client unchanged, run against our server (`npm run dev`). It greets everyone
// who joins and likes every song. The server: HANGOUT_URL (default http://localhost:8787).
// The token: BOT_TOKEN, or (development only) a bot the seeded user Lou owns, made on first
// run through POST /users/sign-up-bot and GET /users/bot-token.
import { SocketClient } from "ttfm-socket";

const room = process.argv[2];
if (!room) {
  console.error("usage: npm run bot -- <room uuid or slug>");
  process.exit(2);
}
const base = process.env.HANGOUT_URL ?? "http://localhost:8787";

async function call(path, init = {}, token, service = "user-service") {
  const res = await fetch(`${base}/api/${service}${path}`, {
    ...init,
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The dev bot's token: Lou (a seeded, verified user) owns `lou+greeter@hangout.local`. */
async function devBotToken() {
  const email = "lou+greeter@hangout.local";
  const password = "greeter-bot-password";
  const login = (e, p) =>
    call("/auth/login", { method: "POST", body: JSON.stringify({ email: e, password: p }) });
  let bot = await login(email, password);
  if (bot.status !== 200) {
    const lou = await login("lou@hangout.local", "user-password");
    if (lou.status !== 200) throw new Error(`cannot log in as Lou: ${JSON.stringify(lou.body)}`);
    const made = await call(
      "/users/sign-up-bot",
      { method: "POST", body: JSON.stringify({ email, password, nickname: "Greeter Bot" }) },
      lou.body.token,
    );
    if (made.status !== 201) throw new Error(`sign-up-bot: ${JSON.stringify(made.body)}`);
    bot = await login(email, password);
  }
  const t = await call("/users/bot-token", {}, bot.body.token);
  if (t.status !== 200) throw new Error(`bot-token: ${JSON.stringify(t.body)}`);
  return t.body.token;
}

const token = process.env.BOT_TOKEN ?? (await devBotToken());
const client = new SocketClient(base);

/** Likes the song playing (a repeated like counts once: the server keys votes by song and user). */
const like = () =>
  client.action("voteOnSong", { songVotes: { like: true } }).catch((e) => console.error(e));

/**
 * Chat as tt.live bots do it through CometChat: join the room's chat group with the bot token,
 * then read and post with a chat token (GET /comet-chat/user-token, a day long: a 401 fetches
 * a new one). The room action `sendChat` works too; this is the chat-token way.
 */
let chatToken = null;
async function say(roomUuid, message) {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!chatToken) chatToken = (await call("/comet-chat/user-token", {}, token)).body?.authToken;
    const body = JSON.stringify({ message });
    const r = await call(
      `/rooms/${roomUuid}/chat`,
      { method: "POST", body },
      chatToken,
      "room-service",
    );
    if (r.status !== 401) {
      if (r.status !== 201) console.error(`chat: ${r.status} ${r.body?.message}`);
      return;
    }
    chatToken = null;
  }
}

let roomUuid = null;
async function join() {
  const joined = await client.joinRoom(token, { roomUuid: room });
  roomUuid = joined.roomUuid;
  const { state } = joined;
  console.log(`joined ${state.settings.name}: ${state.allUsers.length} here`);
  const member = await call(
    `/roomUserRoles/cometchat/join/${roomUuid}`,
    { method: "POST" },
    token,
    "room-service",
  );
  if (member.status >= 300) console.error(`chat join: ${member.status} ${member.body?.message}`);
  if (state.nowPlaying) await like();
}

client.on("statefulMessage", async (message) => {
  for (const op of message.statePatch) {
    // A newcomer's entry in allUserData carries their profile: greet them by name.
    // (updatedUserData is this bot's own join: everyone already here.)
    if (
      message.name !== "updatedUserData" &&
      op.op === "add" &&
      /^\/allUserData\/[^/]+$/.test(op.path)
    )
      await say(roomUuid, `Welcome, ${op.value.userProfile.nickname}!`).catch(console.error);
  }
  // Any change under /nowPlaying but its end (null) is a song starting.
  if (message.statePatch.some((op) => op.path.startsWith("/nowPlaying") && op.value !== null))
    await like();
});
client.on("roomReset", () => setTimeout(() => join().catch(console.error), 1000));
client.on("kickedFromRoom", () => {
  console.log("kicked: bye");
  process.exit(0);
});
client.on("error", (e) => console.error("error:", e));

await join();

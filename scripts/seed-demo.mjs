// A demo that feels alive on `npm run dev` (issue 20): a current season with points and a
// ranking, the seeded people wearing avatars with art, stickers and confetti in the shop,
// and a few rooms to walk into. Idempotent like the rest of the seed: fixed uuids, slugs
// and event ids (INSERT OR IGNORE, "where not exists"), so it runs on every start.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

const q = (s) => (s === null || s === undefined ? "NULL" : `'${String(s).replace(/'/g, "''")}'`);

const ADMIN_UUID = "00000000-0000-4000-8000-000000000001";
const SAM_UUID = "00000000-0000-4000-8000-000000000003";

/** What each seeded person wears (public avatars of scripts/seed-avatars.mjs). */
const WEARS = {
  "00000000-0000-4000-8000-000000000001": "vinyl-spin",
  "00000000-0000-4000-8000-000000000002": "night-cans",
  "00000000-0000-4000-8000-000000000003": "mixtape",
  "00000000-0000-4000-8000-000000000004": "night-cans",
  "00000000-0000-4000-8000-000000000005": "vinyl-spin",
};

/**
 * The demo DJs (issue 20): bot accounts (no password, owned by the admin) that the Room keeps
 * on stage in their room, playing the demo music (durable/room/demo-dj.ts). The Worker only
 * seats them where DEMO_DJS names them: `npm install` writes `demoDjsVar()` into .dev.vars.
 */
export const DEMO_DJS = [
  {
    uuid: "00000000-0000-4000-8000-0000000000d1",
    nickname: "DJ Sol",
    avatar: "vinyl-spin",
    color: "FF4FA3",
    room: "sunset-deck",
  },
  {
    uuid: "00000000-0000-4000-8000-0000000000d2",
    nickname: "DJ Lowkey",
    avatar: "mixtape",
    color: "3EE0FF",
    room: "basement-beats",
  },
];

/** The DEMO_DJS value for the seeded rooms: `room:djUuid` pairs. */
export const demoDjsVar = () => DEMO_DJS.map((d) => `${d.room}:${d.uuid}`).join(",");

/** Demo rooms, owned by DJ Sam and the admin; listed, each its genre and design. */
export const SEED_ROOMS = [
  {
    uuid: "00000000-0000-4000-8000-0000000000a1",
    slug: "sunset-deck",
    name: "Sunset Deck",
    description: "Deep house and disco edits while the sun goes down.",
    genre: "house",
    design: "YACHT",
    owner: SAM_UUID,
  },
  {
    uuid: "00000000-0000-4000-8000-0000000000a2",
    slug: "basement-beats",
    name: "Basement Beats",
    description: "Hip-hop, old and new. Bring your best crate.",
    genre: "hiphop",
    design: "UNDERGROUND",
    owner: SAM_UUID,
  },
  {
    uuid: "00000000-0000-4000-8000-0000000000a3",
    slug: "lofi-library",
    name: "Lo-fi Library",
    description: "Quiet beats to read, code and chat to.",
    genre: "lofi",
    design: "THEATER",
    owner: ADMIN_UUID,
  },
];

const sticker = (body, bg) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="256" height="256">` +
  `<circle cx="50" cy="50" r="46" fill="${bg}" stroke="#fff" stroke-width="5"/>${body}</svg>`;

const confettiArt = () => {
  const colors = ["#ff4fa3", "#3ee0ff", "#ffd166", "#3ddc97", "#b3a0ff", "#f95d2d"];
  const bits = [];
  for (let i = 0; i < 42; i++) {
    const x = (i * 37) % 200;
    const y = (i * 53) % 100;
    const r = (i * 29) % 180;
    bits.push(
      `<rect x="${x}" y="${y}" width="6" height="11" rx="1.5" fill="${colors[i % colors.length]}" transform="rotate(${r} ${x + 3} ${y + 5})"/>`,
    );
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="800" height="400">` +
    `<rect width="200" height="100" fill="#1d1440"/>${bits.join("")}</svg>`
  );
};

/** The shop's demo gifts: a picture each (SVG in R2), fixed file ids. */
export const SEED_CONSUMABLES = [
  {
    fileId: "00000000-0000-4000-8000-0000000000c1",
    name: "Fire sticker",
    description: "For the track that sets the floor alight.",
    tokenCost: 5,
    displayType: "small",
    art: sticker(
      `<path d="M50 20 C62 38 72 44 70 62 A20 20 0 0 1 30 62 C28 50 38 44 40 32 C46 42 50 40 50 20 Z" fill="#ffb020"/>` +
        `<path d="M50 44 C56 52 60 56 58 64 A8 8 0 0 1 42 64 C42 58 46 54 50 44 Z" fill="#fff3c4"/>`,
      "#f95d2d",
    ),
  },
  {
    fileId: "00000000-0000-4000-8000-0000000000c2",
    name: "Heart sticker",
    description: "Tell the DJ you love this one.",
    tokenCost: 5,
    displayType: "small",
    art: sticker(
      `<path d="M50 74 L26 50 A13 13 0 0 1 50 32 A13 13 0 0 1 74 50 Z" fill="#fff"/>`,
      "#ff4fa3",
    ),
  },
  {
    fileId: "00000000-0000-4000-8000-0000000000c3",
    name: "Golden record",
    description: "The highest honour a DJ can get from the floor.",
    tokenCost: 25,
    displayType: "small",
    art: sticker(
      `<circle cx="50" cy="50" r="30" fill="#111"/><circle cx="50" cy="50" r="22" fill="none" stroke="#333"/>` +
        `<circle cx="50" cy="50" r="11" fill="#ffd700"/><circle cx="50" cy="50" r="2" fill="#111"/>`,
      "#ffd166",
    ),
  },
  {
    fileId: "00000000-0000-4000-8000-0000000000c4",
    name: "Confetti",
    description: "A burst of confetti across the whole room.",
    tokenCost: 50,
    displayType: "cover",
    art: confettiArt(),
  },
];

const DAY = 86_400_000;

/** The demo's SQL, after the users and avatars are in. */
export function demoSql(now = Date.now()) {
  const stmts = [];
  // A season around today, unless one already covers any of it (seasons never overlap).
  const start = now - 14 * DAY;
  const end = now + 76 * DAY;
  stmts.push(
    `INSERT INTO seasons (name, start_date, end_date) SELECT 'Demo season', ${start}, ${end} WHERE NOT EXISTS (SELECT 1 FROM seasons WHERE start_date <= ${now} AND end_date > ${now}) AND NOT EXISTS (SELECT 1 FROM seasons WHERE name = 'Demo season');`,
  );
  for (const d of DEMO_DJS)
    stmts.push(
      `INSERT OR IGNORE INTO users (uuid, email, email_verified, nickname, color, roles, owner_uuid, avatar_id) VALUES (${q(d.uuid)}, NULL, 1, ${q(d.nickname)}, ${q(d.color)}, '["bot"]', ${q(ADMIN_UUID)}, ${q(d.avatar)});`,
    );
  for (const [uuid, slug] of Object.entries(WEARS))
    stmts.push(
      `UPDATE users SET avatar_id = ${q(slug)} WHERE uuid = ${q(uuid)} AND avatar_id IS NULL;`,
    );
  for (const r of SEED_ROOMS)
    stmts.push(
      `INSERT OR IGNORE INTO rooms (uuid, slug, name, description, genre, design, owner_uuid) VALUES (${q(r.uuid)}, ${q(r.slug)}, ${q(r.name)}, ${q(r.description)}, ${q(r.genre)}, ${q(r.design)}, ${q(r.owner)});`,
    );
  for (const c of SEED_CONSUMABLES) {
    stmts.push(
      `INSERT OR IGNORE INTO consumable_files (id, content_type, size, owner_uuid) VALUES (${q(c.fileId)}, 'image/svg+xml', ${Buffer.byteLength(c.art)}, ${q(ADMIN_UUID)});`,
      `INSERT INTO consumables (name, description, token_cost, display_type, file_id) SELECT ${q(c.name)}, ${q(c.description)}, ${c.tokenCost}, ${q(c.displayType)}, ${q(c.fileId)} WHERE NOT EXISTS (SELECT 1 FROM consumables WHERE file_id = ${q(c.fileId)});`,
    );
  }
  return stmts.join("\n");
}

/** Puts the gifts' pictures in the local R2 (`consumables/<fileId>`, as the upload route does). */
export function putConsumableArt({
  persist = [],
  cwd = process.cwd(),
  stdio = "pipe",
  env = process.env,
} = {}) {
  const dir = `${cwd}/.wrangler/seed-consumables`;
  mkdirSync(dir, { recursive: true });
  const list = SEED_CONSUMABLES.map((c) => {
    const file = `${dir}/${c.fileId}.svg`;
    writeFileSync(file, c.art);
    return { key: `consumables/${c.fileId}`, file };
  });
  writeFileSync(`${dir}/bulk.json`, JSON.stringify(list));
  execFileSync(
    "npx",
    [
      "wrangler",
      "r2",
      "bulk",
      "put",
      "hangout-uploads",
      "--filename",
      `${dir}/bulk.json`,
      "--content-type",
      "image/svg+xml",
      "--local",
      "--force",
      ...persist,
    ],
    { cwd, stdio, env },
  );
}

/** The season's demo standings: points per seeded person (a ranking with a leader). */
const DEMO_POINTS = [
  ["00000000-0000-4000-8000-000000000003", 640],
  ["00000000-0000-4000-8000-000000000005", 410],
  ["00000000-0000-4000-8000-000000000004", 230],
  ["00000000-0000-4000-8000-000000000002", 120],
];

/**
 * Awards the demo points through the real points route (the board is the Leaderboard
 * object, D1 only mirrors it), once: each award has a fixed event id, which the board
 * applies at most once however often this runs.
 */
export async function seedDemoPoints(baseURL, admin) {
  const post = async (path, json, token) => {
    const res = await fetch(`${baseURL}${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(json),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const { token } = await post("/api/user-service/auth/login", {
    email: admin.email,
    password: admin.password,
  });
  let awarded = 0;
  for (const [userUuid, points] of DEMO_POINTS) {
    await post(
      "/api/merch-service/points/season/admin/handle-points",
      { eventId: `demo-season-${userUuid}`, userUuid, points, reason: "Demo standings" },
      token,
    );
    awarded++;
  }
  return awarded;
}

/**
 * Opens each demo DJ's room once (the REST join as the admin pushes the room's settings to its
 * object), so the demo DJs are playing before anyone looks. Answers how many rooms answered.
 */
export async function wakeDemoRooms(baseURL, admin) {
  const login = await fetch(`${baseURL}/api/user-service/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: admin.email, password: admin.password }),
  });
  const { token } = await login.json();
  let woke = 0;
  for (const d of DEMO_DJS) {
    const res = await fetch(`${baseURL}/api/room-service/rooms/${d.room}/join`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: "{}",
    });
    if (res.ok) woke++;
    else console.warn(`warning: demo room ${d.room}: join answered ${res.status}`);
  }
  return woke;
}

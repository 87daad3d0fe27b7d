// Demo avatars for `npm run dev` and the browser tests: a few original SVG drawings in R2
// and their rows in D1, one of each status. Idempotent: INSERT OR IGNORE on fixed slugs,
// and the art is put again under the same keys (`avatars/<slug>/seed1.svg`, the layout
// workers/merch-service/avatar-art.ts reads; SVG is served at every size).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

const svg = (body, bg) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="256" height="256">` +
  `<defs><radialGradient id="bg" cx="30%" cy="25%" r="90%"><stop offset="0" stop-color="${bg[0]}"/><stop offset="1" stop-color="${bg[1]}"/></radialGradient></defs>` +
  `<circle cx="50" cy="50" r="50" fill="url(#bg)"/>${body}</svg>`;

/** Each avatar: its row and its drawing. */
export const SEED_AVATARS = [
  {
    slug: "vinyl-spin",
    name: "Vinyl Spin",
    description: "A record on the platter, always turning.",
    status: "PUBLIC",
    art: svg(
      `<circle cx="50" cy="50" r="34" fill="#111"/><circle cx="50" cy="50" r="28" fill="none" stroke="#333" stroke-width="1"/><circle cx="50" cy="50" r="21" fill="none" stroke="#2a2a2a" stroke-width="1"/>` +
        `<circle cx="50" cy="50" r="11" fill="#ff4fa3"/><circle cx="50" cy="50" r="2.2" fill="#111"/><path d="M31 34 A24 24 0 0 1 44 27" stroke="#fff" stroke-opacity=".35" stroke-width="2.5" fill="none" stroke-linecap="round"/>`,
      ["#7b5cff", "#2a1473"],
    ),
  },
  {
    slug: "night-cans",
    name: "Night Cans",
    description: "Headphones on, world off.",
    status: "PUBLIC",
    art: svg(
      `<path d="M24 60 V50 A26 26 0 0 1 76 50 V60" fill="none" stroke="#e4e0f5" stroke-width="6" stroke-linecap="round"/>` +
        `<rect x="17" y="54" width="16" height="24" rx="7" fill="#3ee0ff"/><rect x="67" y="54" width="16" height="24" rx="7" fill="#3ee0ff"/>` +
        `<rect x="21" y="58" width="8" height="16" rx="4" fill="#0b3d4a"/><rect x="71" y="58" width="8" height="16" rx="4" fill="#0b3d4a"/>`,
      ["#1d3b6b", "#070d1f"],
    ),
  },
  {
    slug: "mixtape",
    name: "Mixtape",
    description: "Side A for the floor, side B for the ride home.",
    status: "PUBLIC",
    art: svg(
      `<rect x="18" y="30" width="64" height="42" rx="5" fill="#ffd166"/><rect x="25" y="36" width="50" height="18" rx="3" fill="#fff7e0"/>` +
        `<circle cx="38" cy="45" r="6" fill="#3d2b00"/><circle cx="62" cy="45" r="6" fill="#3d2b00"/><rect x="44" y="43" width="12" height="4" fill="#7a5a10"/>` +
        `<path d="M30 72 L35 62 H65 L70 72" fill="#e0b34a"/><text x="50" y="68" font-size="6" text-anchor="middle" font-family="sans-serif" font-weight="700" fill="#3d2b00">A</text>`,
      ["#ef476f", "#5d1f5e"],
    ),
  },
  {
    slug: "gold-eq",
    name: "Gold EQ",
    description: "Bars that dance in gold, for subscribers.",
    status: "SUBSCRIBER_ONLY",
    art: svg(
      [18, 30, 42, 54, 66, 78]
        .map((x, i) => {
          const h = [22, 38, 50, 30, 44, 26][i];
          return `<rect x="${x - 4}" y="${74 - h}" width="8" height="${h}" rx="3" fill="#ffd700" fill-opacity="${0.6 + i * 0.07}"/>`;
        })
        .join("") + `<rect x="14" y="76" width="72" height="3" rx="1.5" fill="#fff3b0"/>`,
      ["#3a2a00", "#120c00"],
    ),
  },
  {
    slug: "disco-ball",
    name: "Disco Ball",
    description: "Given by the team to people who light up a room.",
    status: "PRIVATE",
    art: svg(
      `<line x1="50" y1="6" x2="50" y2="22" stroke="#c9c3e0" stroke-width="2"/><circle cx="50" cy="52" r="30" fill="#c9c3e0"/>` +
        Array.from({ length: 6 }, (_, r) =>
          Array.from(
            { length: 6 },
            (_, c) =>
              `<rect x="${26 + c * 8}" y="${28 + r * 8}" width="7" height="7" fill="${(r + c) % 3 === 0 ? "#ffffff" : (r + c) % 3 === 1 ? "#b3a0ff" : "#8f86b0"}"/>`,
          ).join(""),
        ).join("") +
        `<circle cx="50" cy="52" r="30" fill="none" stroke="#07060d" stroke-opacity=".3" stroke-width="2"/>`,
      ["#ff4fa3", "#3b0a2a"],
    ),
  },
  {
    slug: "server-synth",
    name: "Server Synth",
    description: "For people who linked their Discord account.",
    status: "PUBLIC",
    discordOnly: true,
    art: svg(
      `<rect x="14" y="38" width="72" height="30" rx="4" fill="#1b1b2f"/>` +
        Array.from(
          { length: 8 },
          (_, i) =>
            `<rect x="${17 + i * 8.4}" y="48" width="7.4" height="18" rx="1" fill="#f5f3ff"/>`,
        ).join("") +
        [0, 1, 3, 4, 5]
          .map(
            (i) =>
              `<rect x="${22.5 + i * 8.4}" y="48" width="4.6" height="11" rx="1" fill="#1b1b2f"/>`,
          )
          .join("") +
        `<circle cx="24" cy="43" r="2.2" fill="#39ff14"/><circle cx="32" cy="43" r="2.2" fill="#3ee0ff"/>`,
      ["#5865f2", "#1e2266"],
    ),
  },
];

/** Trophy: a season award, made only if a season exists (the points seed or an admin makes one). */
const TROPHY = {
  slug: "season-trophy",
  name: "Season Trophy",
  description: "For the DJs who reach 500 points in the season.",
  art: svg(
    `<path d="M34 26 H66 V40 A16 16 0 0 1 34 40 Z" fill="#ffd166"/><path d="M34 30 H24 A10 10 0 0 0 36 46" fill="none" stroke="#ffd166" stroke-width="4"/>` +
      `<path d="M66 30 H76 A10 10 0 0 1 64 46" fill="none" stroke="#ffd166" stroke-width="4"/><rect x="46" y="55" width="8" height="10" fill="#e0b34a"/><rect x="36" y="65" width="28" height="8" rx="2" fill="#e0b34a"/>`,
    ["#1f6f4a", "#07140f"],
  ),
};

const q = (s) => (s === null || s === undefined ? "NULL" : `'${String(s).replace(/'/g, "''")}'`);
const key = (slug) => `avatars/${slug}/seed1.svg`;

export function avatarSeedSql() {
  const rows = SEED_AVATARS.map(
    (a) =>
      `INSERT OR IGNORE INTO avatars (slug, name, description, status, discord_only, image_key) VALUES (${q(a.slug)}, ${q(a.name)}, ${q(a.description)}, ${q(a.status)}, ${a.discordOnly ? 1 : 0}, ${q(key(a.slug))});`,
  );
  rows.push(
    `INSERT OR IGNORE INTO avatars (slug, name, description, status, season_id, points_threshold, image_key) SELECT ${q(TROPHY.slug)}, ${q(TROPHY.name)}, ${q(TROPHY.description)}, 'SEASON_AWARD', id, 500, ${q(key(TROPHY.slug))} FROM seasons ORDER BY start_date DESC LIMIT 1;`,
  );
  return rows.join("\n");
}

/** Writes the drawings and puts them in the local R2 in one wrangler call. */
export function putAvatarArt({
  persist = [],
  cwd = process.cwd(),
  stdio = "pipe",
  env = process.env,
} = {}) {
  const dir = `${cwd}/.wrangler/seed-avatars`;
  mkdirSync(dir, { recursive: true });
  const list = [...SEED_AVATARS, TROPHY].map((a) => {
    const file = `${dir}/${a.slug}.svg`;
    writeFileSync(file, a.art);
    return { key: key(a.slug), file };
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
      "--cache-control",
      "public, max-age=60",
      "--local",
      "--force",
      ...persist,
    ],
    { cwd, stdio, env },
  );
}

// Demo data for `npm run dev` and the browser tests: an admin, a moderator and a few users.
// Idempotent (INSERT OR IGNORE on fixed uuids), so it runs on every start.
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { avatarSeedSql, putAvatarArt } from "./seed-avatars.mjs";
import { shopSeedSql } from "./seed-shop.mjs";
import { demoSql, putConsumableArt } from "./seed-demo.mjs";

/** The seeded logins (development only; printed by `npm run dev`). */
export const SEED_USERS = [
  {
    uuid: "00000000-0000-4000-8000-000000000001",
    email: "admin@hangout.local",
    password: "admin-password",
    nickname: "Ada Admin",
    roles: ["user", "admin"],
    color: "F95D2D",
  },
  {
    uuid: "00000000-0000-4000-8000-000000000002",
    email: "mod@hangout.local",
    password: "moderator-password",
    nickname: "Moe Moderator",
    roles: ["user", "moderator"],
    color: "2DBEF9",
  },
  {
    uuid: "00000000-0000-4000-8000-000000000003",
    email: "dj.sam@hangout.local",
    password: "user-password",
    nickname: "DJ Sam",
    roles: ["user"],
    color: "562DF9",
  },
  {
    uuid: "00000000-0000-4000-8000-000000000004",
    email: "lou@hangout.local",
    password: "user-password",
    nickname: "Lou Listener",
    roles: ["user"],
    color: "2DF98B",
  },
  {
    uuid: "00000000-0000-4000-8000-000000000005",
    email: "kim@hangout.local",
    password: "user-password",
    nickname: "Kim Crate",
    roles: ["user"],
    color: "F9D72D",
  },
];

// The same format as workers/lib/password.ts, so seeded accounts log in like any other.
function hash(password) {
  const salt = randomBytes(16);
  const h = pbkdf2Sync(password, salt, 100_000, 32, "sha256");
  return `pbkdf2-sha256$100000$${salt.toString("base64")}$${h.toString("base64")}`;
}

const q = (s) => `'${String(s).replace(/'/g, "''")}'`;

export function seedSql() {
  const stmts = [];
  for (const u of SEED_USERS) {
    stmts.push(
      `INSERT OR IGNORE INTO users (uuid, email, password_hash, email_verified, nickname, color, roles) VALUES (${q(u.uuid)}, ${q(u.email)}, ${q(hash(u.password))}, 1, ${q(u.nickname)}, ${q(u.color)}, ${q(JSON.stringify(u.roles))});`,
      `INSERT INTO user_emails (user_id, email, type, status, verified_at) SELECT id, email, 'personal', 'CREATED_BY_ADMIN', unixepoch() * 1000 FROM users WHERE uuid = ${q(u.uuid)} AND NOT EXISTS (SELECT 1 FROM user_emails e WHERE e.user_id = users.id);`,
    );
  }
  stmts.push(shopSeedSql());
  return stmts.join("\n");
}

/**
 * Applies migrations and seeds the local D1 under `persistTo` (wrangler's default when unset).
 * @param {{ persistTo?: string, cwd?: string, quiet?: boolean }} [opts]
 */
export function migrateAndSeed({ persistTo, cwd = process.cwd(), quiet = false } = {}) {
  const persist = persistTo ? ["--persist-to", persistTo] : [];
  const stdio = quiet ? "pipe" : "inherit";
  const env = {
    ...process.env,
    CI: "1",
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
  };
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", ...persist], {
    cwd,
    stdio,
    env,
  });
  const file = `${cwd}/.wrangler/seed.sql`;
  execFileSync("mkdir", ["-p", `${cwd}/.wrangler`]);
  // Demo avatars (scripts/seed-avatars.mjs): rows with the users, art in R2 in one bulk put.
  // Then the live demo (scripts/seed-demo.mjs): a season, rooms, gifts, avatars worn.
  writeFileSync(file, `${seedSql()}\n${demoSql()}\n${avatarSeedSql()}`);
  execFileSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--file", file, ...persist], {
    cwd,
    stdio,
    env,
  });
  putAvatarArt({ persist, cwd, stdio, env });
  putConsumableArt({ persist, cwd, stdio, env });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  migrateAndSeed();
  console.log("seeded", SEED_USERS.map((u) => u.email).join(", "));
}

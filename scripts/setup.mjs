// `npm install` runs this (postinstall): it makes the development keys on first run.
// .dev.vars is git-ignored; production secrets are set with `wrangler secret put`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { demoDjsVar } from "./seed-demo.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const file = `${root}.dev.vars`;

export function ensureDevVars() {
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  const lines = [];
  if (!/^JWT_PRIVATE_KEY=/m.test(current) || !/^JWT_PUBLIC_KEY=/m.test(current)) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const q = (pem) => `"${pem.trim().replace(/\n/g, "\\n")}"`;
    lines.push(`JWT_PRIVATE_KEY=${q(privateKey)}`, `JWT_PUBLIC_KEY=${q(publicKey)}`);
  }
  // One secret per purpose: SERVICE_KEY only authenticates service calls; ROOT_SECRET is the
  // root of the Worker's own keys (room tickets, HLS, room-password index; HKDF per purpose,
  // workers/lib/purpose-keys.ts). Both are added to an existing .dev.vars too.
  if (!/^SERVICE_KEY=/m.test(current))
    lines.push(`SERVICE_KEY="${randomBytes(24).toString("hex")}"`);
  if (!/^ROOT_SECRET=/m.test(current))
    lines.push(`ROOT_SECRET="${randomBytes(32).toString("hex")}"`);
  // Local test-mode checkout signs its Stripe-shaped events with this, and POST
  // /webhook/stripe verifies them with it, exactly as it verifies Stripe's own. Added to an
  // existing .dev.vars too. (Leave STRIPE_SECRET_KEY unset to stay in local test mode.)
  if (!/^STRIPE_WEBHOOK_SECRET=/m.test(current))
    lines.push(`STRIPE_WEBHOOK_SECRET="whsec_${randomBytes(24).toString("hex")}"`);
  // Web Push (VAPID, RFC 8292): the public key as the base64url uncompressed P-256 point
  // (what a page passes as applicationServerKey), the private key as its base64url scalar.
  // Added to an existing .dev.vars too. Production: `wrangler secret put` each (README).
  if (!/^VAPID_PUBLIC_KEY=/m.test(current) || !/^VAPID_PRIVATE_KEY=/m.test(current)) {
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const pub = publicKey.export({ format: "jwk" });
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(pub.x, "base64url"),
      Buffer.from(pub.y, "base64url"),
    ]);
    lines.push(
      `VAPID_PUBLIC_KEY="${point.toString("base64url")}"`,
      `VAPID_PRIVATE_KEY="${privateKey.export({ format: "jwk" }).d}"`,
    );
  }
  if (!/^VAPID_SUBJECT=/m.test(current)) lines.push(`VAPID_SUBJECT="mailto:admin@hangout.local"`);
  // Local runs are development (the dev outbox page); wrangler.toml defaults to production.
  if (!/^ENVIRONMENT=/m.test(current)) lines.push(`ENVIRONMENT="development"`);
  // The local transcoder (scripts/transcoder.mjs, started by `npm run dev`): jobs and its
  // callbacks are signed with this secret. Added to an existing .dev.vars too.
  if (!/^TRANSCODER_SECRET=/m.test(current))
    lines.push(`TRANSCODER_SECRET="${randomBytes(24).toString("hex")}"`);
  if (!/^TRANSCODER_URL=/m.test(current))
    lines.push(`TRANSCODER_URL="http://127.0.0.1:${process.env.TRANSCODER_PORT ?? 8790}"`);
  // The seeded rooms' demo DJs (durable/room/demo-dj.ts); production leaves DEMO_DJS unset.
  // Added to an existing .dev.vars too; set it to "" there to turn the demo DJs off.
  if (!/^DEMO_DJS=/m.test(current)) lines.push(`DEMO_DJS="${demoDjsVar()}"`);
  if (lines.length) {
    writeFileSync(
      file,
      `${current}${current && !current.endsWith("\n") ? "\n" : ""}${lines.join("\n")}\n`,
    );
    console.log(
      `made development keys in .dev.vars (${lines.map((l) => l.split("=")[0]).join(", ")})`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDevVars();

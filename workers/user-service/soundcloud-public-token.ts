import { and, eq, lt } from "drizzle-orm";
import { outside } from "../adapters/music";
import { tokenRequest, type OAuthClient } from "../adapters/oauth";
import { db } from "../db/client";
import { appTokens } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { open, seal } from "../lib/sealed";
import { LINK_MSG } from "./linked-messages";

/**
 * SoundCloud's app token (client credentials) for GET /soundcloud/public-token and its
 * mobile twin. SoundCloud allows an app only a few such tokens a day, so one token serves
 * every caller until it lapses, and only one caller anywhere fetches the next:
 *
 * - in this isolate: the token in memory, and one shared promise while it is being fetched
 *   (20 concurrent calls make one provider request);
 * - across isolates: the sealed token in D1 (`app_tokens`) and a lease taken by a
 *   conditional update; whoever wins fetches, the others read D1 again until it is there.
 */
const MARGIN_MS = 60_000;
const LEASE_MS = 15_000;
const WAIT_STEP_MS = 200;

type Held = { token: string; expiresAt: number };
const memory = new Map<string, Held>();
const inflight = new Map<string, Promise<Held>>();

const fresh = (h: { expiresAt: number } | undefined | null) =>
  !!h && h.expiresAt - MARGIN_MS > Date.now();

/** The app token for `client` (web or mobile): cached until a minute before it lapses. */
export function publicToken(env: Env, client: OAuthClient): Promise<Held> {
  const name = `soundcloud-public:${client.variant}:${client.clientId}`;
  const hit = memory.get(name);
  if (fresh(hit)) return Promise.resolve(hit!);
  const pending = inflight.get(name);
  if (pending) return pending;
  const p = load(env, client, name)
    .then((h) => {
      memory.set(name, h);
      return h;
    })
    .finally(() => inflight.delete(name));
  inflight.set(name, p);
  return p;
}

async function readStored(env: Env, name: string): Promise<Held | null> {
  const row = await db(env).select().from(appTokens).where(eq(appTokens.name, name)).get();
  if (!row?.tokenEnc || !row.keyId || !fresh(row)) return null;
  const token = await open(env, "providerTokens", row.keyId, row.tokenEnc, `app-token:${name}`);
  return token ? { token, expiresAt: row.expiresAt } : null;
}

async function load(env: Env, client: OAuthClient, name: string): Promise<Held> {
  const d = db(env);
  const deadline = Date.now() + LEASE_MS;
  await d.insert(appTokens).values({ name }).onConflictDoNothing();
  for (;;) {
    const stored = await readStored(env, name);
    if (stored) return stored;
    const now = Date.now();
    const won = await d
      .update(appTokens)
      .set({ leaseUntil: now + LEASE_MS })
      .where(and(eq(appTokens.name, name), lt(appTokens.leaseUntil, now)))
      .returning({ name: appTokens.name })
      .get();
    if (won) {
      try {
        const t = await outside(client.name, () =>
          tokenRequest(client, { grant_type: "client_credentials" }),
        );
        const held = { token: t.accessToken, expiresAt: Date.now() + t.expiresIn * 1000 };
        const sealed = await seal(env, "providerTokens", held.token, `app-token:${name}`);
        await d
          .update(appTokens)
          .set({
            tokenEnc: sealed.value,
            keyId: sealed.keyId,
            expiresAt: held.expiresAt,
            leaseUntil: 0,
          })
          .where(eq(appTokens.name, name));
        return held;
      } catch (err) {
        await d.update(appTokens).set({ leaseUntil: 0 }).where(eq(appTokens.name, name));
        throw err;
      }
    }
    if (Date.now() > deadline) throw new ApiError(503, LINK_MSG.publicTokenBusy);
    await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
  }
}

/** Forgets the in-memory tokens (tests). */
export function forgetPublicTokens() {
  memory.clear();
}

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
type Stored = Held & { enc: string };
const memory = new Map<string, Held>();
const inflight = new Map<string, Promise<Held>>();
const refreshing = new Map<string, Promise<Held>>();

const fresh = (h: { expiresAt: number } | undefined | null) =>
  !!h && h.expiresAt - MARGIN_MS > Date.now();

/** The app token for `client` (web or mobile): cached until a minute before it lapses. */
export function publicToken(env: Env, client: OAuthClient): Promise<Held> {
  const name = nameOf(client);
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

async function readStored(env: Env, name: string): Promise<Stored | null> {
  const row = await db(env).select().from(appTokens).where(eq(appTokens.name, name)).get();
  if (!row?.tokenEnc || !row.keyId || !fresh(row)) return null;
  const token = await open(env, "providerTokens", row.keyId, row.tokenEnc, `app-token:${name}`);
  return token ? { token, expiresAt: row.expiresAt, enc: row.tokenEnc } : null;
}

const nameOf = (client: OAuthClient) => `soundcloud-public:${client.variant}:${client.clientId}`;

/**
 * The provider refused `stale` (SoundCloud answers 401 or 403 for a lapsed or revoked app
 * token): forget it in D1 and here, then fetch the next as `publicToken` does (one request at
 * a time). Every caller refused the same token shares one refresh; one whose refusal arrives
 * after the token was replaced gets the newer one and fetches nothing. D1's row is expired
 * only while it still holds the refused token (a conditional update), never a newer one
 * another isolate just stored; memory is cleared after D1, so a caller in between cannot
 * read the refused token back from D1.
 */
export function refreshPublicToken(env: Env, client: OAuthClient, stale: string): Promise<Held> {
  const name = nameOf(client);
  const hit = memory.get(name);
  if (fresh(hit) && hit!.token !== stale) return Promise.resolve(hit!);
  const pending = refreshing.get(name);
  if (pending) return pending;
  const p = (async () => {
    const stored = await readStored(env, name);
    if (stored && stored.token !== stale) {
      const held = { token: stored.token, expiresAt: stored.expiresAt };
      memory.set(name, held);
      return held;
    }
    if (stored)
      await db(env)
        .update(appTokens)
        .set({ expiresAt: 0 })
        .where(and(eq(appTokens.name, name), eq(appTokens.tokenEnc, stored.enc)));
    if (memory.get(name)?.token === stale) memory.delete(name);
    return publicToken(env, client);
  })().finally(() => refreshing.delete(name));
  refreshing.set(name, p);
  return p;
}

async function load(env: Env, client: OAuthClient, name: string): Promise<Held> {
  const d = db(env);
  const deadline = Date.now() + LEASE_MS;
  await d.insert(appTokens).values({ name }).onConflictDoNothing();
  for (;;) {
    const stored = await readStored(env, name);
    if (stored) return { token: stored.token, expiresAt: stored.expiresAt };
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
  inflight.clear();
  refreshing.clear();
}

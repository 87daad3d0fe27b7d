import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { db } from "../workers/db/client";
import { seasons, userEmails, users } from "../workers/db/schema";
import { call, type CallInit } from "./helpers";
import { setSubscriptionLevel } from "./payment-helpers";

/** Factories for the avatar tests; every name is unique, storage is shared within a file. */

export const merch = (path: string, init?: CallInit) => call("merch-service", path, init);

let n = 0;
export const uniqueSlug = (tag = "av") =>
  `${tag}-${Date.now().toString(36)}-${(n++).toString(36)}${Math.random().toString(36).slice(2, 5)}`;

/** Creates an avatar through the admin route (201 expected). */
export async function makeAvatar(adminToken: string, over: Record<string, unknown> = {}) {
  const slug = (over.slug as string) ?? uniqueSlug();
  const res = await merch("/avatars", {
    token: adminToken,
    body: { slug, name: `Avatar ${slug}`, ...over },
  });
  if (res.status !== 201)
    throw new Error(`avatar create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { slug: string; status: string };
}

/** A season row, as the points service would keep it. */
export async function makeSeason(name = `Season ${uniqueSlug()}`) {
  const now = Date.now();
  return db(env)
    .insert(seasons)
    .values({ name, startDate: now - 86_400_000, endDate: now + 86_400_000 })
    .returning()
    .get();
}

/** What payments leaves when a subscription starts (or, with null, ends). */
export const setSubscription = setSubscriptionLevel;

/** A verified Discord link: the user-service keeps it as an e-mail of type `discord`. */
export async function linkDiscord(userId: number) {
  await db(env)
    .insert(userEmails)
    .values({
      userId,
      email: `d${uniqueSlug()}@discord.example`,
      type: "discord",
      status: "VERIFIED",
      verifiedAt: Date.now(),
    });
}

export const wear = (token: string, avatarId: string | null) =>
  call("user-service", "/users/profile", { token, body: { avatarId } });

export const assign = (token: string, slug: string, userUuid: string, type = "MANUAL") =>
  merch(`/avatar-assignment/${slug}`, { token, body: { userUuid, type } });

export async function avatarIdOf(uuid: string) {
  return (
    (
      await db(env)
        .select({ avatarId: users.avatarId })
        .from(users)
        .where(eq(users.uuid, uuid))
        .get()
    )?.avatarId ?? null
  );
}

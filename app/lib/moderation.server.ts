import { userApi } from "./api.server";
import type { PublicProfile } from "./types";
import { UUID } from "./moderation";

interface Args {
  request: Request;
  context: import("@remix-run/cloudflare").AppLoadContext;
}

/**
 * Nicknames of the moderators named in a page of actions or events (uuid → nickname), from
 * their public profiles. At most 25 lookups; an unknown or deactivated one is left out (the
 * page shows the uuid).
 */
export async function actorNames(
  args: Args,
  uuids: (string | null | undefined)[],
  token: string,
): Promise<Record<string, string>> {
  const unique = [...new Set(uuids.filter((u): u is string => !!u && UUID.test(u)))].slice(0, 25);
  const found = await Promise.all(
    unique.map((u) => userApi<PublicProfile>(args, `/profile/${u}`, { token })),
  );
  const names: Record<string, string> = {};
  found.forEach((r, i) => {
    if (r.ok) names[unique[i]] = r.data.nickname;
  });
  return names;
}

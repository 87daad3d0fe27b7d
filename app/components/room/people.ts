import type { ReactNode } from "react";
import type { RoomProfile } from "~/lib/rooms";
import type { RoomUser, UserData } from "../../../shared/protocol";
import type { ModTarget } from "./UserMenu";

/** Someone on screen, as much as naming them and opening their menu needs. */
export type RoomPerson = Pick<RoomUser, "uuid" | "tokenRole">;
/** The name to show for someone: their profile's, the room's, or "Guest"/"Listener". */
export type NameOf = (u: RoomPerson) => string;
/** Wraps an avatar in the moderator's menu, for those who may moderate. */
export type ModMenu = (u: RoomPerson, node: ReactNode, extra?: Partial<ModTarget>) => ReactNode;

/**
 * The profiles the room draws: the user-service's (which has the picture), overlaid with
 * the room's own copy for everyone present (allUserData), which the room keeps current
 * (`updatedUserProfile`: a new name, avatar or badge shows without a reload). The room
 * says "default" for no avatar; here that is none, so the picture or initial is drawn.
 */
export function liveProfiles(
  fetched: Record<string, RoomProfile>,
  userData: Record<string, UserData> | undefined,
): Record<string, RoomProfile> {
  if (!userData) return fetched;
  const out = { ...fetched };
  for (const [uuid, { userProfile: p }] of Object.entries(userData)) {
    if (!p) continue;
    out[uuid] = {
      uuid,
      nickname: p.nickname || fetched[uuid]?.nickname || "",
      color: p.color ?? fetched[uuid]?.color ?? null,
      profilePicture: fetched[uuid]?.profilePicture ?? null,
      avatarId: p.avatarId && p.avatarId !== "default" ? p.avatarId : null,
      badges: p.badges ?? [],
    };
  }
  return out;
}

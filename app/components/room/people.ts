import type { ReactNode } from "react";
import type { RoomUser } from "../../../shared/protocol";
import type { ModTarget } from "./UserMenu";

/** Someone on screen, as much as naming them and opening their menu needs. */
export type RoomPerson = Pick<RoomUser, "uuid" | "tokenRole">;
/** The name to show for someone: their profile's, the room's, or "Guest"/"Listener". */
export type NameOf = (u: RoomPerson) => string;
/** Wraps an avatar in the moderator's menu, for those who may moderate. */
export type ModMenu = (u: RoomPerson, node: ReactNode, extra?: Partial<ModTarget>) => ReactNode;

import { serviceApp } from "../lib/service";
import { roomAdminRoutes } from "./room-admin";
import { roomChatRoutes } from "./room-chat";
import { roomChatLineRoutes } from "./room-chat-lines";
import { roomCrowdRoutes } from "./room-crowd";
import { roomRelayRoutes } from "./room-relays";
import { roomFavoriteRoutes } from "./room-favorites";
import { roomDiscoverRoutes } from "./room-discover";
import { roomListRoutes } from "./room-lists";
import { roomLiveRoutes } from "./room-live";
import { roomPosterRoutes } from "./room-poster";
import { roomRoutes } from "./rooms";
import { roomPlayedRoutes } from "./room-played";
import { roomRoleRoutes } from "./room-roles";
import { roomServiceListRoutes } from "./room-service-lists";

/**
 * The room-service: rooms (D1) and the REST side of the live Room objects (joining, pins,
 * chat, roles and moderation, played time), favourites and room lists, communities and
 * events. Its texts are in messages.ts.
 */
export const roomService = serviceApp("room-service");
// Fixed paths (/rooms/public, /rooms/favorites, /rooms/poster/..., /rooms/admin/...) go
// before rooms.ts, whose /rooms/{id} would otherwise take them for a slug.
// Moderation, played time and the service/Discord/per-user lists: fixed paths, mounted first.
// The cometchat, conversation and rockset paths are fixed too; before /roomUserRoles/{roomId}.
roomService.route("/", roomChatRoutes);
roomService.route("/", roomRoleRoutes);
roomService.route("/", roomPlayedRoutes);
roomService.route("/", roomServiceListRoutes);
// Development and test only (404 elsewhere): the bench's synthetic crowd in a room.
roomService.route("/", roomCrowdRoutes);
roomService.route("/", roomRelayRoutes);
for (const routes of [
  roomDiscoverRoutes,
  roomListRoutes,
  roomFavoriteRoutes,
  roomPosterRoutes,
  roomAdminRoutes,
  roomLiveRoutes,
  roomChatLineRoutes,
  roomRoutes,
]) {
  roomService.route("/", routes);
}
import { adminCommunityRoutes } from "./admin-communities";
import { communityMemberRoutes } from "./community-members";
import { communityRoutes } from "./communities";
import { eventRoutes } from "./events";
// Communities and events: member routes (join, leave, add, remove) before communities.ts,
// whose alias POST /communities/{id}/{roomId} would otherwise take those fixed names.
roomService.route("/", adminCommunityRoutes);
roomService.route("/", communityMemberRoutes);
roomService.route("/", communityRoutes);
roomService.route("/", eventRoutes);

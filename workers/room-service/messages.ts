/**
 * Every text the room-service answers with (rooms, live rooms, roles and moderation, chat,
 * favourites, communities and events). Routes and tests import them from here, so each
 * text is written once.
 */
export const MSG = {
  // Rooms (room-repo.ts, rooms.ts, room-lists.ts, room-service-lists.ts).
  roomNotFound: "Room not found.",
  roomRefNotFound: (ref: string) => `Room not found: ${ref}`,
  slugTaken: "This room slug is already taken. Please choose another.",
  editRefused: "Only the room's owner, a co-owner or an admin can change this room.",
  ownerOnly: "Only the room's owner or an admin can do this.",
  tooManySearches: (wait: string) => `Too many room searches; try again in ${wait}.`,
  tooManyEdits: (wait: string) =>
    `This room's settings were changed too often; try again in ${wait}.`,
  objectDown: "The live room is not reachable right now; please try again.",
  userNotFound: "User not found.",
  discordBindRefused: "Only the room's owner or an admin can bind it to a Discord server.",
  ownerUuidSame: "ownerUuid must be another user.",
  posterNotFound: "Room poster not found.",
  favouriteNotFound: "Room favourite not found.",
  favouriteNotYours: "You can only remove your own favourites.",
  // Joining and pins (room-live.ts).
  joinPasswordRequired: "This room is password protected: send its password to join.",
  joinPasswordWrong: "Wrong room password.",
  joinGuestPasswordRequired: "Guests need the room's guest password to join.",
  roomStateGuest:
    "Guests cannot see the live state of a password-protected room: sign in and join it.",
  pinRefused: "Only the room's owner, co-owners and moderators can pin messages.",
  pinLimit: (max: number) => `A room can pin at most ${max} messages: unpin one first.`,
  pinNotFound: "Pinned message not found.",
  // Chat (room-chat.ts).
  syncRefused: "Only the room's owner, co-owners and admins can sync the room's roles.",
  clearRefused: "Only the room's owner, co-owners, moderators and admins can clear the chat.",
  chatOff: "Chat is turned off in this room.",
  chatBanned: "You are banned from this room.",
  ghostPublicOnly: "A ghost token watches public rooms only; this room has a password.",
  chatJoinFirst: "This room is password protected: join the room before its chat.",
  // Roles and moderation (room-roles.ts, room-moderation.ts).
  changeOwnerOnly: "Use PUT /roomUserRoles/change-owner/{roomId} to change the room's owner.",
  kickSelf: "You cannot kick yourself.",
  kickedByModerator: "Kicked by a moderator.",
  kickUnsupported:
    "This room cannot kick users yet (the live room has neither kickUser nor setRole).",
  changeOwnerRefused: "Only the room's owner or an admin can change its owner.",
  alreadyOwner: "This user already owns the room.",
  newOwnerBanned: "The new owner is banned in this room: remove the ban first.",
  roleNotHeld: "This user does not hold that role in this room.",
  ownerUnbannable: "The room's owner cannot be banned or kicked.",
  notAModerator: "Only the room's owner, co-owners and moderators can change roles in this room.",
  moderatorLimit: (grants: readonly string[]) =>
    `Moderators can only grant or remove ${grants.join(", ")}.`,
  moderatorTarget: "Moderators cannot act against the room's owner, co-owners or other moderators.",
  coOwnerTarget: "Co-owners cannot change the room owner's roles.",
  // Communities (community-repo.ts, communities.ts, community-members.ts, admin-communities.ts).
  communityNotFound: "Community not found.",
  communitySlugTaken: "This community slug is already taken. Please choose another.",
  communityAdminsOnly: "Only the community's admins can do this.",
  communityRoomRefused: "Only the community's admins or the room's owner can do this.",
  communityPrivate: "This community is private; ask one of its admins to add you.",
  usersNotFound: (uuids: string[]) => `User not found: ${uuids.join(", ")}`,
  duplicateSlug: (slug: string) => `Duplicate slug in the batch: ${slug}`,
  // Events (events.ts).
  eventNotFound: "Event not found.",
  eventSlugTaken: "This event slug is already taken. Please choose another.",
  eventRoomRefused: "Only the room's owner or an admin can schedule events in it.",
  eventHostOnly: "Only the event's host or an admin can do this.",
  eventEndsBeforeStart: "endsAt must be after startsAt",
} as const;

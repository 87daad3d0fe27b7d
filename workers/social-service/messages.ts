import { MSG } from "../user-service/messages";

/**
 * The social-service's messages. The seeds name none for the graph, so these are ours; a
 * missing person is the user-service's catalogue text, so an unknown user and one who
 * blocked you read exactly alike.
 */
export const SOCIAL_MSG = {
  userNotFound: MSG.profileNotFound,
  selfFollow: "You cannot follow yourself.",
  tooManyFollows: (n: number) => `You follow ${n} DJs, the most one account can follow.`,
  selfInvite: "You cannot send a friend invitation to yourself.",
  invitationPending: "A friend invitation between you is already pending.",
  alreadyFriends: "You are already friends.",
  tooManyPending: (n: number) =>
    `You have ${n} pending friend invitations, the most one account can have; wait for answers or withdraw some.`,
  invitationNotFound: "Friend invitation not found.",
  invitationNotPending: "This friend invitation has already been answered.",
  friendshipNotFound: "Friendship not found.",
  friendListHidden: "Only this user, their friends and admins can see their friend list.",
  invitationsHidden: "Only this user and admins can see their invitations.",
  selfBlock: "You cannot block yourself.",
  tooManyBlocks: (n: number) => `You have blocked ${n} users, the most one account can block.`,
  contactBookFull: (max: number) =>
    `A contact book holds at most ${max} entries; delete it or send fewer contacts.`,
  contactOneOf: "Each contact must have exactly one of phone or email.",
  // Direct messages (direct-messages.ts, dm-store.ts).
  dmSelf: "You cannot send a message to yourself.",
  dmBlocked: "You cannot send messages to this user.",
  dmFriendsOnly: "This user accepts messages from friends only.",
  dmNotFound: "Conversation not found.",
  dmTooMany: (wait: string) => `You are sending messages too fast; try again in ${wait}.`,
  dmTooManyPeople: (wait: string) =>
    `You have started too many new conversations; try again in ${wait}.`,
} as const;

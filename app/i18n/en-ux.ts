/** English strings of the room's small things and the first hour (issue 20); spread into en.ts. */
export const enUx = {
  "room.sendGift": "Send a gift",
  "room.mentionList": "People in the room",
  "room.mentionsYou": "mentions you",
  "player.volume": "Volume",
  "player.mute": "Mute",
  "player.unmute": "Unmute",
} as const;

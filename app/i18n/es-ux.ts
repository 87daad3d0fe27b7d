import type { enUx } from "./en-ux";

/** Español: the strings of en-ux.ts. */
export const esUx: Record<keyof typeof enUx, string> = {
  "room.sendGift": "Enviar un regalo",
  "room.mentionList": "Gente en la sala",
  "room.mentionsYou": "te menciona",
  "player.volume": "Volumen",
  "player.mute": "Silenciar",
  "player.unmute": "Activar sonido",
};

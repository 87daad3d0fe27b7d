import type { enActivity } from "./en-activity";

/** Spanish strings of the Discord Activity page (issue 16). */
export const esActivity: Record<keyof typeof enActivity, string> = {
  "activity.title": "Hangout en Discord",
  "activity.lede": "Escuchen juntos sin salir de su canal de voz.",
  "activity.connecting": "Conectando con Discord…",
  "activity.signingIn": "Iniciando tu sesión…",
  "activity.opening": "Abriendo la sala de tu servidor…",
  "activity.choose": "Este servidor tiene {count} salas. Elige una:",
  "activity.listeners": "{count} escuchando",
  "activity.noRoom":
    "Todavía no hay ninguna sala de Hangout vinculada a este servidor de Discord. El dueño de una sala puede vincularla (id del servidor {guildId}).",
  "activity.noGuild":
    "Abre Hangout desde el canal de voz de un servidor para entrar en la sala de ese servidor.",
  "activity.browse": "Ver todas las salas",
  "activity.outside":
    "Esta página funciona dentro de Discord. Abre Hangout desde el menú de Actividades de un canal de voz.",
  "activity.off": "Discord no está disponible en este servidor.",
  "activity.denied": "No permitiste Hangout en Discord, así que no pasó nada.",
  "activity.failed": "No se pudo iniciar sesión a través de Discord.",
  "activity.retry": "Reintentar",
};

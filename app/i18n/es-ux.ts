import type { enUx } from "./en-ux";

/** Español: the strings of en-ux.ts. */
export const esUx: Record<keyof typeof enUx, string> = {
  "room.sendGift": "Enviar un regalo",
  "room.mentionList": "Gente en la sala",
  "room.mentionsYou": "te menciona",
  "player.volume": "Volumen",
  "player.mute": "Silenciar",
  "player.unmute": "Activar sonido",
  "adminHome.title": "Administración",
  "adminHome.heading": "Administración",
  "adminHome.lede": "Todo lo que cuida un administrador, una página para cada cosa.",
  "adminHome.users": "Busca cuentas, sus roles, tokens e historial.",
  "adminHome.audit": "Quién hizo qué, cuándo y dónde.",
  "adminHome.deactivations": "Cuentas cerradas y las que esperan cerrarse.",
  "adminHome.consumables": "Los regalos que se venden en las salas: precios, arte y existencias.",
  "adminHome.tokenBundles": "Los paquetes de tokens que se compran.",
  "adminHome.seasons": "Temporadas del ranking: cuándo empieza y acaba cada una.",
  "adminHome.rankingStatus": "Si el ranking está al día.",
  "adminHome.deadLetters": "Puntos que no se pudieron contar, para reintentar.",
  "adminHome.avatars": "Los avatares que se pueden llevar y cómo se consiguen.",
  "adminHome.products": "Los productos a la venta y sus precios.",
  "verifyBanner.label": "Verificación del correo",
  "verifyBanner.text": "Verifica tu correo {email}: te enviamos un código de 6 dígitos.",
  "verifyBanner.resend": "Enviar el código otra vez",
  "verifyBanner.enterCode": "Escribir el código",
};

import type { enLinked } from "./en-linked";

/** Spanish strings of the Connected accounts page (issue 16). */
export const esLinked: Record<keyof typeof enLinked, string> = {
  "login.discord": "Continuar con Discord",
  "linked.title": "Cuentas conectadas",
  "linked.short": "Cuentas conectadas",
  "linked.lede":
    "Conecta tus cuentas de música y de Discord: reproduce desde tu propio Spotify, exporta crates a tu biblioteca y desbloquea avatares exclusivos de Discord. Hangout nunca muestra tus contraseñas ni tokens de proveedores a nadie.",
  "linked.back": "Volver a tu perfil",
  "linked.link": "Conectar",
  "linked.linking": "Abriendo {name}…",
  "linked.unlink": "Desconectar",
  "linked.unlinking": "Desconectando…",
  "linked.relink": "Conectar de nuevo",
  "linked.linkedAs": "Conectado como {name}",
  "linked.linkedSince": "desde {date}",
  "linked.notLinked": "Sin conectar",
  "linked.unavailable": "No disponible en este servidor",
  "linked.revoked":
    "{name} dejó de aceptar esta conexión. Conéctala de nuevo para seguir usándola.",
  "linked.done": "{name} está conectado.",
  "linked.removed": "{name} está desconectado.",
  "linked.failed.state":
    "Esa solicitud caducó o se inició en otra ventana. Vuelve a empezar, por favor.",
  "linked.failed.denied": "No autorizaste a Hangout en {name}, así que no se conectó nada.",
  "linked.failed.elsewhere": "Esta cuenta de {name} ya está conectada a otra cuenta de Hangout.",
  "linked.failed.unavailable": "{name} no está disponible en este servidor ahora mismo.",
  "linked.failed.generic": "No se pudo conectar {name}. Inténtalo de nuevo.",
  "linked.appleDenied": "Apple Music no le dio acceso a Hangout, así que no se conectó nada.",
  "linked.appleHint": "Apple Music se conecta desde la app de Hangout en tu iPhone o Mac.",
  "linked.discordPerk": "Desbloquea avatares exclusivos de Discord.",
  "linked.spotifyPerk": "Exporta crates a tus playlists de Spotify.",
  "linked.youtubePerk": "Trae tu canal de YouTube.",
  "linked.soundcloudPerk": "Reproduce pistas de SoundCloud con tu cuenta.",
  "linked.applePerk": "Exporta crates a tu biblioteca de Apple Music.",
};

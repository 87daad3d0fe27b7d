import type { enStage } from "./en-stage";

/** Spanish strings of the way to the stage (issue 20); the keys are en-stage.ts's. */
export const esStage: Record<keyof typeof enStage, string> = {
  "waitlist.heading": "Lista de espera",
  "waitlist.join": "Apuntarme a la lista de espera",
  "waitlist.leave": "Salir de la lista",
  "waitlist.yourPlace": "Eres el n.º {place} de la lista",
  "waitlist.yourPlace.one": "Eres el siguiente de la lista",
  "waitlist.count": "{count} esperando",
  "waitlist.count.one": "1 esperando",
  "waitlist.more": "+{count} más",
  "waitlist.full": "La lista de espera está llena; prueba cuando alguien consiga asiento.",
  "waitlist.notWaiting": "No estás en la lista de espera.",
  "waitlist.hint":
    "Todos los asientos están ocupados. Apúntate a la lista y te sentaremos cuando se libere uno.",
  "queue.open": "Mi cola",
  "queue.drawerTitle": "Tu cola",
  "queue.close": "Cerrar",
  "queue.empty": "Tu cola está vacía",
  "queue.emptyBody":
    "Busca una canción aquí abajo y añádela: necesitas una para ocupar un asiento.",
  "queue.emptyPrompt": "Tu cola está vacía: añade una canción antes de ocupar un asiento.",
  "queue.fill": "Llenar mi cola",
  "queue.searchLabel": "Busca canciones para añadir",
  "queue.searchPlaceholder": "Canción o artista",
  "queue.search": "Buscar",
  "queue.noResults": "No hay canciones para «{q}».",
  "queue.moveUp": "Subir «{track}»",
  "queue.moveDown": "Bajar «{track}»",
  "queue.remove": "Quitar «{track}» de tu cola",
  "queue.count": "{count} canciones en tu cola",
  "queue.count.one": "1 canción en tu cola",
  "queue.refillLabel": "Cuando se acabe tu cola, rellénala con",
  "queue.refillNone": "No rellenar (añadiré canciones yo)",
  "queue.refillSaved": "Guardado: tu cola se rellenará con «{crate}».",
  "queue.refillOff": "Guardado: sin relleno automático.",
  "queue.notice.refilled":
    "Tu cola se estaba acabando: hemos añadido {count} canciones de tu lista.",
  "queue.notice.refilled.one": "Tu cola se estaba acabando: hemos añadido 1 canción de tu lista.",
  "queue.notice.empty":
    "A tu cola no le queda nada que sonar. Añade canciones antes de tu turno o saldrás del escenario.",
  "queue.notice.dropped": "Has salido del escenario: a tu cola no le quedaba nada que sonar.",
  "queue.notice.seated": "Se ha liberado un asiento: ¡estás en el escenario!",
  "recent.heading": "Sonado hace poco",
  "recent.empty": "Aquí aparecerán las canciones que suenen en esta sala.",
  "recent.playedBy": "puesta por {name}",
  "recent.votes": "{likes} me gusta, {dislikes} no me gusta",
};

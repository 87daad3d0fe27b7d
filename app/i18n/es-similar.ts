import type { enSimilar } from "./en-similar";

/** Español del panel «parecidas a lo que suena» de la sala (issue 18). */
export const esSimilar: Record<keyof typeof enSimilar, string> = {
  "similar.heading": "Parecidas a lo que suena",
  "similar.lede": "Sugerencias para tu cola",
  "similar.add": "Añadir a la cola",
  "similar.addLabel": "Añadir «{track}» de {artist} a tu cola",
  "similar.added": "Añadida",
  "similar.loading": "Buscando canciones parecidas…",
  "similar.empty":
    "Aún no hay sugerencias. Mejoran a medida que la gente reproduce, marca y guarda canciones en sus listas.",
  "similar.failed": "No se pudieron cargar las sugerencias: {reason}",
  "similar.retry": "Reintentar",
  "similar.analysing": "Estamos analizando esta canción; pronto habrá sugerencias más afinadas.",
  "similar.reason.analysis": "Suena parecido",
  "similar.reason.liked": "Gustan juntas",
  "similar.reason.crated": "En las mismas listas",
  "similar.reason.played": "Sonó cerca",
  "similar.reason.artist": "Mismo artista",
  "similar.reason.genre": "Mismo género",
  "similar.reason.recent": "Novedad",
};

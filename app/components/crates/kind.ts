/** Which crate a CrateView shows: a user's crate, the queue or the likes. */
export type CrateKind = "crate" | "queue" | "likes";

import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";
import * as schema from "./schema";

/** A drizzle handle over the request's D1 binding (cheap: no connection to open). */
export const db = (env: Pick<Env, "DB">) => drizzle(env.DB, { schema });
export type DB = ReturnType<typeof db>;

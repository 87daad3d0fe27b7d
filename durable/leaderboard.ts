import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";

// TEMPORARY shell so the Worker builds; replaced by the real object in this same change.
export class Leaderboard extends DurableObject<Env> {}

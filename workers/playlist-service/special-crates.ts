import { Hono, type Context } from "hono";
import type { SpecialCrate } from "../../shared/songs";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { forbidden } from "../lib/errors";
import { valid } from "../lib/validate";
import { crateSongRoutesFor } from "./crate-songs";
import { clearSongs, specialCrate } from "../crates/crate-repo";
import { crateDto, updateCrate } from "./crate-repo";
import { updateBody } from "./crates";
import { MSG } from "./messages";

/**
 * The caller's queue and likes crates (`/crate/queue/...`, `/crate/likes/...`), made on
 * first use. Mounted before crates.ts and crate-songs.ts, so these literal paths win over
 * `/crate/:id`. They take the same song calls as any crate, plus clear; they cannot be
 * deleted or renamed.
 */
export const specialCrateRoutes = new Hono<AppEnv>();

// Literal paths per kind (no `{queue|likes}` pattern: Hono anchors only one side of an
// alternation, so it would also match "queue/songs").
for (const kind of ["queue", "likes"] as const satisfies readonly SpecialCrate[]) {
  const base = `/crate/${kind}`;
  const mine = (c: Context<AppEnv>) => specialCrate(c.env, caller(c).uuid, kind);

  /** GET /crate/{queue|likes}: the CrateDto. */
  specialCrateRoutes.get(base, requireUser, async (c) => c.json(crateDto(await mine(c))));

  /** PATCH /crate/{queue|likes}: description and visibility only; a new name is 403. */
  specialCrateRoutes.patch(base, requireUser, valid("json", updateBody), async (c) => {
    return c.json(crateDto(await updateCrate(c.env, await mine(c), c.req.valid("json"))));
  });

  /** DELETE /crate/{queue|likes}: never (clear empties it instead). */
  specialCrateRoutes.delete(base, requireUser, () => {
    throw forbidden(MSG.specialLocked);
  });

  /** DELETE /crate/{queue|likes}/clear: removes every song; `{ removed }`. */
  specialCrateRoutes.delete(`${base}/clear`, requireUser, async (c) => {
    const crate = await mine(c);
    return c.json({ removed: await clearSongs(c.env, crate.id) });
  });

  specialCrateRoutes.route(
    "/",
    crateSongRoutesFor(base, (c) => mine(c), requireUser),
  );
}

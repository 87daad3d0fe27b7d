import type { Context } from "hono";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import type { UserRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller } from "../lib/auth";
import { secretsEqual } from "../lib/crypto";
import { ApiError, forbidden } from "../lib/errors";
import { LIB_MSG } from "../lib/messages";
import { findAnyUserOr404 } from "./accounts";
import { LINK_MSG } from "./linked-messages";

/** Input shapes the linking calls share. */
export const codeBody = z.object({
  code: z
    .string({ error: "code must be a string" })
    .min(1, "code should not be empty")
    .max(2048, "code must be at most 2048 characters"),
  state: z
    .string({ error: "state must be a string" })
    .min(1, "state should not be empty")
    .max(200, "state must be at most 200 characters"),
});

/** `{id}`: a numeric account id or a uuid. */
export const idParam = z.object({
  id: z
    .string()
    .regex(/^(\d{1,12}|[0-9a-f-]{36})$/i, "id must be an account id or uuid")
    .transform((s) => s.toLowerCase()),
});

/** `?mobile=true|false` (absent: false). */
export const mobileQuery = z.object({
  mobile: z
    .enum(["true", "false", "1", "0"], { error: "mobile must be true or false" })
    .optional()
    .transform((v) => v === "true" || v === "1"),
});

/**
 * Who may read account `{id}`'s provider token: the account itself, another service (the
 * `X-Service-Key`) or an admin. Anyone else is 403; no token at all is 401.
 */
export async function ownOrService(c: Context<AppEnv>, id: string): Promise<UserRow> {
  const key = c.req.header("X-Service-Key");
  if (key !== undefined) {
    if (!c.env.SERVICE_KEY || !(await secretsEqual(key, c.env.SERVICE_KEY)))
      throw new ApiError(401, LIB_MSG.invalidServiceKey);
    return findAnyUserOr404(c.env, id);
  }
  const who = caller(c);
  const self = who.user.uuid === id || String(who.user.id) === id;
  if (self) return who.user;
  if (!who.roles.some((r) => ADMIN_ROLES.includes(r))) throw forbidden(LINK_MSG.notYours);
  return findAnyUserOr404(c.env, id);
}

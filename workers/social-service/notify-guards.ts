import type { Context } from "hono";
import { ADMIN_ROLES } from "../../shared/roles";
import type { AppEnv } from "../env";
import { caller } from "../lib/auth";
import { secretsEqual } from "../lib/crypto";
import { ApiError, forbidden } from "../lib/errors";
import { LIB_MSG } from "../lib/messages";

/**
 * Who is asking about `userUuid`'s things: a service (the X-Service-Key, checked as
 * requireService checks it), an admin, or that user. Anyone else: 403 (401 with no
 * credentials at all), with the same text whether or not the user or thing exists.
 */
export async function requireSelfOrService(
  c: Context<AppEnv>,
  userUuid: string,
  message = "Forbidden resource",
) {
  const key = c.req.header("X-Service-Key");
  if (key !== undefined) {
    if (!c.env.SERVICE_KEY || !(await secretsEqual(key, c.env.SERVICE_KEY)))
      throw new ApiError(401, LIB_MSG.invalidServiceKey);
    return;
  }
  const who = caller(c);
  if (who.uuid === userUuid || who.roles.some((r) => ADMIN_ROLES.includes(r))) return;
  throw forbidden(message);
}

/** A service call: the X-Service-Key was given (and is right). */
export async function isServiceCall(c: Context<AppEnv>): Promise<boolean> {
  const key = c.req.header("X-Service-Key");
  if (key === undefined) return false;
  if (!c.env.SERVICE_KEY || !(await secretsEqual(key, c.env.SERVICE_KEY)))
    throw new ApiError(401, LIB_MSG.invalidServiceKey);
  return true;
}

import type { Env } from "../env";
import { hasRootSecret, purposeKey } from "./purpose-keys";

/**
 * Join tickets. A password-protected room is entered through `POST /rooms/{id}/join`,
 * which checks the password; the websocket then carries the ticket that call issued, so a
 * client cannot skip the password by opening `/parties/room/<uuid>` directly. A ticket is
 * `<roomUuid>.<userUuid>.<exp>.<HMAC-SHA256>` and lasts 12 hours (reconnects reuse it).
 * The MAC key is the room-ticket purpose key (lib/purpose-keys.ts), used for nothing else.
 */
export const TICKET_TTL_MS = 12 * 3600_000;

const enc = new TextEncoder();
const b64url = (buf: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
function fromB64url(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(s)) return undefined; // 32 bytes, unpadded
  return Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
}

type TicketEnv = Pick<Env, "ROOT_SECRET">;

/** A ticket admitting `userUuid` to `roomUuid` for 12 hours (503 when ROOT_SECRET is unset). */
export async function issueTicket(
  env: TicketEnv,
  roomUuid: string,
  userUuid: string,
  now = Date.now(),
) {
  const payload = `${roomUuid}.${userUuid}.${now + TICKET_TTL_MS}`;
  const key = await purposeKey(env, "roomTicket");
  return `${payload}.${b64url(await crypto.subtle.sign("HMAC", key, enc.encode(payload)))}`;
}

/**
 * Whether `ticket` admits `userUuid` to `roomUuid` now. The MAC is checked with WebCrypto's
 * `verify`, which compares in constant time. No ROOT_SECRET: nothing is admitted.
 */
export async function ticketAdmits(
  env: TicketEnv,
  ticket: string | null,
  roomUuid: string,
  userUuid: string,
  now = Date.now(),
) {
  const parts = ticket?.split(".") ?? [];
  if (parts.length !== 4 || !hasRootSecret(env)) return false;
  const [room, user, exp, sig] = parts;
  if (room !== roomUuid || user !== userUuid || !(Number(exp) > now)) return false;
  const mac = fromB64url(sig);
  if (!mac) return false;
  const key = await purposeKey(env, "roomTicket");
  return crypto.subtle.verify("HMAC", key, mac, enc.encode(`${room}.${user}.${exp}`));
}

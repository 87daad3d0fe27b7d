/**
 * Join tickets. A password-protected room is entered through `POST /rooms/{id}/join`,
 * which checks the password; the websocket then carries the ticket that call issued, so a
 * client cannot skip the password by opening `/parties/room/<uuid>` directly. A ticket is
 * `<roomUuid>.<userUuid>.<exp>.<HMAC-SHA256>` and lasts 12 hours (reconnects reuse it).
 */
export const TICKET_TTL_MS = 12 * 3600_000;

const enc = new TextEncoder();
const b64url = (buf: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function mac(secret: string, payload: string) {
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(`room-ticket:${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return b64url(await crypto.subtle.sign("HMAC", key, enc.encode(payload)));
}

/** The signing secret: the service key, else the JWT private key (always set). */
const secretOf = (env: { SERVICE_KEY?: string; JWT_PRIVATE_KEY: string }) =>
  env.SERVICE_KEY || env.JWT_PRIVATE_KEY;

export async function issueTicket(
  env: { SERVICE_KEY?: string; JWT_PRIVATE_KEY: string },
  roomUuid: string,
  userUuid: string,
  now = Date.now(),
) {
  const payload = `${roomUuid}.${userUuid}.${now + TICKET_TTL_MS}`;
  return `${payload}.${await mac(secretOf(env), payload)}`;
}

/** Whether `ticket` admits `userUuid` to `roomUuid` now. Constant-time on the signature. */
export async function ticketAdmits(
  env: { SERVICE_KEY?: string; JWT_PRIVATE_KEY: string },
  ticket: string | null,
  roomUuid: string,
  userUuid: string,
  now = Date.now(),
) {
  const parts = ticket?.split(".") ?? [];
  if (parts.length !== 4) return false;
  const [room, user, exp, sig] = parts;
  if (room !== roomUuid || user !== userUuid || !(Number(exp) > now)) return false;
  const expected = await mac(secretOf(env), `${room}.${user}.${exp}`);
  if (expected.length !== sig.length) return false;
  let d = 0;
  for (let i = 0; i < sig.length; i++) d |= sig.charCodeAt(i) ^ expected.charCodeAt(i);
  return d === 0;
}

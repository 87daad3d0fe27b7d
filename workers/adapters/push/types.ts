import type { NotificationKind } from "../../../shared/notifications";

/** What every push sender is handed: the text, the data, and whether it is data-only. */
export interface PushPayload {
  /** The in-app row's uuid: the client can mark it read from the notification. */
  uuid: string;
  kind: NotificationKind;
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** Data-only: wakes the app, shows nothing (APNs background, FCM data message). */
  silent: boolean;
}

/**
 * How one delivery ended: `sent`; `gone` (the service says the token or subscription is
 * dead: the caller removes it); `failed` (worth retrying later: 429, 5xx, network);
 * `refused` (any other answer: a request the service will never take; logged, not retried).
 */
export type PushOutcome = "sent" | "gone" | "failed" | "refused";

/** Every outside push call gets a time limit, like every other outside call (DECISIONS.md). */
export const PUSH_TIMEOUT_MS = 10_000;

/** Bytes backed by a plain ArrayBuffer (what WebCrypto's BufferSource takes). */
export type Bytes = Uint8Array<ArrayBuffer>;

const enc = new TextEncoder();
export const utf8 = (s: string): Bytes => enc.encode(s) as Bytes;

export function b64url(bytes: ArrayBuffer | Uint8Array): string {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url (padding optional); null when it is not base64url. */
export function fromB64url(s: string): Bytes | null {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(s)) return null;
  try {
    const bin = atob(s.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

export function concat(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A JWS in compact form from header and claims, signed by `sign` over the ASCII input. */
export async function compactJws(
  header: object,
  claims: object,
  sign: (input: Bytes) => Promise<ArrayBuffer>,
): Promise<string> {
  const input = `${b64url(utf8(JSON.stringify(header)))}.${b64url(utf8(JSON.stringify(claims)))}`;
  return `${input}.${b64url(await sign(utf8(input)))}`;
}

/** Whether a fetch failure is worth retrying (the status), or a dead token was reported. */
export const transient = (status: number) => status === 429 || status >= 500;

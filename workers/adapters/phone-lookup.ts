import type { Env } from "../env";
import type { ParsedPhone } from "../lib/phones";

/**
 * The line type of a valid number: a carrier lookup service in production, libphonenumber's
 * number-range metadata locally. Ranges tell mobile from fixed and VoIP by the block a number
 * was issued in; a carrier lookup also sees numbers ported into VoIP carriers, which is why
 * production should configure one (PHONE_LOOKUP_URL).
 *
 * The service is a Twilio Lookup v2-style API: `GET <PHONE_LOOKUP_URL>/<E.164>
 * ?Fields=line_type_intelligence` with a bearer key, answering
 * `{ line_type_intelligence: { type } }` (mobile, landline, fixedVoip, nonFixedVoip,
 * personal, tollFree, premium, sharedCost, uan, voicemail, pager, unknown).
 */
export type LineKind = "mobile" | "voip" | "other";
export type Lookup = { kind: LineKind; lineType: string } | { kind: "error"; lineType: null };

export const LOOKUP_TIMEOUT_MS = 5_000;

const FROM_SERVICE: Record<string, LineKind> = {
  mobile: "mobile",
  fixedVoip: "voip",
  nonFixedVoip: "voip",
};

/**
 * libphonenumber's types. FIXED_LINE_OR_MOBILE counts as mobile: in the US, Canada and a
 * few other plans the ranges do not separate them, and refusing every American would be
 * worse than letting a landline try (a landline cannot receive the code anyway).
 */
const FROM_RANGES: Record<string, LineKind> = {
  MOBILE: "mobile",
  FIXED_LINE_OR_MOBILE: "mobile",
  VOIP: "voip",
};

export async function lookupLine(env: Env, p: ParsedPhone): Promise<Lookup> {
  if (!env.PHONE_LOOKUP_URL)
    return { kind: FROM_RANGES[p.lineType ?? ""] ?? "other", lineType: p.lineType ?? "UNKNOWN" };
  try {
    const url = `${env.PHONE_LOOKUP_URL.replace(/\/$/, "")}/${encodeURIComponent(p.phone)}?Fields=line_type_intelligence`;
    const res = await fetch(url, {
      signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
      headers: env.PHONE_LOOKUP_KEY ? { Authorization: `Bearer ${env.PHONE_LOOKUP_KEY}` } : {},
    });
    if (!res.ok) return { kind: "error", lineType: null };
    const body = (await res.json()) as { line_type_intelligence?: { type?: unknown } | null };
    const type = body.line_type_intelligence?.type;
    if (typeof type !== "string") return { kind: "error", lineType: null };
    return { kind: FROM_SERVICE[type] ?? "other", lineType: type.slice(0, 40) };
  } catch {
    // A timeout or a network failure: the caller answers VALIDATION_ERROR and sends nothing.
    return { kind: "error", lineType: null };
  }
}

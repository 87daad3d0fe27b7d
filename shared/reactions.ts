/**
 * What a chat reaction may be: one emoji (a single grapheme cluster that is pictographic, a
 * flag or a keycap), so a reaction key stays a few bytes and a message's reactions stay
 * small. The room refuses anything else; the browser can ask the same before sending.
 */
export const MAX_REACTIONS_PER_MESSAGE = 50;

const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const FLAG = /^\p{Regional_Indicator}{2}$/u;
const KEYCAP = /^[0-9#*]\uFE0F?\u20E3$/u;
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export function isReactionEmoji(s: string): boolean {
  if (!s || s.length > 32) return false;
  const parts = [...segmenter.segment(s)];
  if (parts.length !== 1) return false;
  return PICTOGRAPH.test(s) || FLAG.test(s) || KEYCAP.test(s);
}

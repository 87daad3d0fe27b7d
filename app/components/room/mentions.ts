/**
 * @mentions in chat (issue 20), matched the way the room matches them when it notifies
 * (durable/room/notices.ts): `@` and a present person's chat name, case-insensitive, the
 * whole name up to a character that is not a letter, digit, `_` or `.`.
 */

/** Characters that may follow a name (notices.ts END). */
const END = /[^\p{L}\p{N}_.]/u;
/** The longest text after `@` the picker still treats as a name being typed. */
export const MENTION_QUERY_MAX = 32;
/** Names the picker offers at most. */
export const MENTION_PICKS = 6;

/** The `@…` being typed just before the caret: where the `@` is and what follows it. */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  // An `@` inside a word (an e-mail address) is no mention.
  if (at > 0 && !/\s/.test(before[at - 1])) return null;
  const query = before.slice(at + 1);
  if (query.length > MENTION_QUERY_MAX || /[\n@]/.test(query)) return null;
  return { start: at, query };
}

/** The names that fit `query`: those starting with it first, then those containing it. */
export function pickNames(names: readonly string[], query: string): string[] {
  const q = query.toLowerCase();
  const starts = names.filter((n) => n.toLowerCase().startsWith(q));
  const inside = names.filter((n) => !starts.includes(n) && n.toLowerCase().includes(q));
  return [...starts, ...inside].slice(0, MENTION_PICKS);
}

/** `text` with the `@query` at `start` replaced by `@name ` (and where the caret goes). */
export function insertMention(
  text: string,
  start: number,
  caret: number,
  name: string,
): { text: string; caret: number } {
  const head = `${text.slice(0, start)}@${name} `;
  return { text: head + text.slice(caret).replace(/^ /, ""), caret: head.length };
}

export type MentionPart = { text: string; mention?: string };

/** `text` cut into plain runs and `@name` runs for the names given (longest names first). */
export function splitMentions(text: string, names: readonly string[]): MentionPart[] {
  if (!text.includes("@") || !names.length) return [{ text }];
  const sorted = [...new Set(names)].filter(Boolean).sort((a, b) => b.length - a.length);
  const lower = text.toLowerCase();
  const parts: MentionPart[] = [];
  let from = 0;
  for (let i = lower.indexOf("@"); i >= 0; i = lower.indexOf("@", i + 1)) {
    if (i < from) continue;
    const name = sorted.find((n) => {
      if (!lower.startsWith(n.toLowerCase(), i + 1)) return false;
      const after = text.charAt(i + 1 + n.length);
      return after === "" || END.test(after);
    });
    if (!name) continue;
    if (i > from) parts.push({ text: text.slice(from, i) });
    parts.push({ text: text.slice(i, i + 1 + name.length), mention: name });
    from = i + 1 + name.length;
    i = from - 1;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}

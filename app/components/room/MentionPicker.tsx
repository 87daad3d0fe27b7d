import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from "react";
import { useT } from "~/i18n";
import { insertMention, mentionQuery, pickNames } from "./mentions";

/**
 * The @mention picker of the chat box (issue 20): typing `@` offers the people in the room
 * whose names fit what follows; arrows move, Enter or Tab puts `@Name ` in the line, Escape
 * closes. The textarea is the combobox; the list sits above it.
 */
export function useMentionPicker({
  names,
  text,
  setText,
  inputRef,
}: {
  names: readonly string[];
  text: string;
  setText: (v: string) => void;
  inputRef: RefObject<HTMLTextAreaElement>;
}) {
  const t = useT();
  const id = useId();
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  // The `@` the listener closed the list on (Escape): it stays closed for that one.
  const [dismissed, setDismissed] = useState<number | null>(null);
  const q = mentionQuery(text, caret);
  const picks = q && dismissed !== q.start ? pickNames(names, q.query) : [];
  const open = picks.length > 0;
  const key = q ? `${q.start}:${q.query}` : "";
  useEffect(() => setActive(0), [key]);

  // The caret goes after the inserted name in the same commit as the text (a frame later
  // would land in the middle of whatever was typed meanwhile).
  const placeCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = placeCaret.current;
    const el = inputRef.current;
    if (at === null || !el) return;
    placeCaret.current = null;
    el.focus();
    el.setSelectionRange(at, at);
  }, [text, inputRef]);

  const choose = (name: string) => {
    if (!q) return;
    const next = insertMention(text, q.start, caret, name);
    placeCaret.current = next.caret;
    setText(next.text);
    setCaret(next.caret);
  };

  /** Handles the picker's keys; true when the key was the picker's. */
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || !q) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a + step + picks.length) % picks.length);
    } else if (e.key === "Enter" || e.key === "Tab") choose(picks[active] ?? picks[0]);
    else if (e.key === "Escape") setDismissed(q.start);
    else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };

  const track = (el: HTMLTextAreaElement) => setCaret(el.selectionStart ?? el.value.length);

  const inputProps = {
    role: "combobox" as const,
    "aria-autocomplete": "list" as const,
    "aria-expanded": open,
    "aria-controls": open ? id : undefined,
    "aria-activedescendant": open ? `${id}-${active}` : undefined,
    onSelect: (e: { currentTarget: HTMLTextAreaElement }) => track(e.currentTarget),
  };

  const list = open ? (
    <ul
      id={id}
      role="listbox"
      aria-label={t("room.mentionList")}
      className="absolute inset-x-0 bottom-full z-10 mb-2 max-h-56 overflow-y-auto rounded-2xl border border-white/15 bg-ink-950/95 p-1 shadow-2xl backdrop-blur"
      data-testid="mention-picker"
    >
      {picks.map((name, i) => (
        <li
          key={name}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          // mousedown, not click: the textarea keeps its focus and caret.
          onMouseDown={(e) => {
            e.preventDefault();
            choose(name);
          }}
          onMouseEnter={() => setActive(i)}
          className="cursor-pointer truncate rounded-lg px-3 py-2 text-sm font-medium text-ink-50 aria-selected:bg-white/15"
          data-testid="mention-option"
        >
          @{name}
        </li>
      ))}
    </ul>
  ) : null;

  return { onKeyDown, track, inputProps, list };
}

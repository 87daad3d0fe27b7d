import type { Connection } from "partyserver";
import type { NotificationMessage } from "../../workers/queues/notifications";
import type { Caller, Who } from "./actions";
import type { Effects } from "./effects";
import type { RoomStorage } from "./storage";

/**
 * Notifications the room sends to people (issue 14), owed in its outbox (effects.ts) so an
 * eviction cannot lose one:
 *
 * - A mention: `@name` in a chat line, for each person in the room now whose chat name it
 *   names (case-insensitive, the whole name up to a non-name character). At most
 *   MAX_MENTIONS people a line, never the sender, at most once a minute from one sender to
 *   one person in this room (a throttle key), so a mention flood reaches nobody twice.
 * - "You're up next" for the DJ whose song follows, when they have no socket in the room (the
 *   socket hears `youAreNext` itself). At most once per ten minutes per DJ and room.
 *
 * The lines are English: the server does not know each reader's language.
 */
export const MAX_MENTIONS = 5;

/** Characters that may follow a name: anything that is not a letter, digit, `_` or `.`. */
const END = /[^\p{L}\p{N}_.]/u;

export class Notices {
  constructor(
    private readonly storage: RoomStorage,
    private readonly effects: Effects,
    private readonly everyone: () => Iterable<Connection<Caller>>,
    private readonly hasSocket: (uuid: string) => boolean,
  ) {}

  /** The people `text` mentions: uuids of accounts in the room now, the sender left out. */
  mentioned(who: Who, text: string | null | undefined): string[] {
    if (!text || !text.includes("@")) return [];
    const lower = text.toLowerCase();
    const found = new Set<string>();
    for (const c of this.everyone()) {
      const p = c.state;
      if (!p?.profile || p.tokenType !== "user" || p.uuid === who.uuid || found.has(p.uuid))
        continue;
      const tag = `@${p.profile.name.toLowerCase()}`;
      for (let at = lower.indexOf(tag); at >= 0; at = lower.indexOf(tag, at + 1)) {
        const after = lower.slice(at + tag.length, at + tag.length + 1);
        if (after === "" || END.test(after)) {
          found.add(p.uuid);
          break;
        }
      }
      if (found.size >= MAX_MENTIONS) break;
    }
    return [...found];
  }

  /** A chat line was sent: tell whoever it mentions. */
  mentions(who: Who, text: string | null | undefined) {
    const people = this.mentioned(who, text);
    if (!people.length || !text) return;
    const s = this.storage.settings();
    const name = who.profile?.name ?? "Someone";
    this.#owe(`mention:${crypto.randomUUID()}`, {
      channel: "users",
      id: crypto.randomUUID(),
      recipients: people,
      createdAt: Date.now(),
      kind: "mention",
      title: `${name} mentioned you in ${s.name}`.slice(0, 100),
      body: text.slice(0, 500),
      data: { roomSlug: s.slug, fromUuid: who.uuid },
      silent: false,
      throttleKey: `mention:${s.uuid}:${who.uuid}`,
      throttleSeconds: 60,
    });
  }

  /** `uuid`'s song is next: tell them if they are not in the room to hear it. */
  upNext(uuid: string) {
    if (this.hasSocket(uuid)) return;
    const s = this.storage.settings();
    this.#owe(`upNext:${uuid}:${Date.now()}`, {
      channel: "users",
      id: crypto.randomUUID(),
      recipients: [uuid],
      createdAt: Date.now(),
      kind: "up_next",
      title: "You're up next",
      body: `Your song plays next in ${s.name}.`.slice(0, 500),
      data: { roomSlug: s.slug },
      silent: false,
      throttleKey: `up_next:${s.uuid}:${uuid}`,
      throttleSeconds: 600,
    });
  }

  #owe(key: string, message: NotificationMessage) {
    this.effects.add(key, { kind: "notify", message });
    void this.effects.drain();
  }
}

/**
 * Every abuse limit the service enforces, in one table (docs/DECISIONS.md, "Abuse limits").
 * A rule allows `limit` hits in any sliding `periodMs`; the RateLimiter durable object
 * (durable/rate-limiter.ts) keeps the hits. Rules are looked up by name inside the object,
 * so a caller can only name a rule, never send its own numbers.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface Rule {
  limit: number;
  periodMs: number;
}

export const RULES = {
  /** POST /users/sign-up, per client network (IPv4 address or IPv6 /64). */
  signUpPerIp: { limit: 5, periodMs: HOUR },
  /** POST /users/voucher-sign-up, per client network: vouchers are handed out at events. */
  voucherSignUpPerIp: { limit: 10, periodMs: HOUR },
  /** POST /users/emails, per account: each add mails a code to any address. */
  addEmailPerAccount: { limit: 5, periodMs: HOUR },
  /** POST /users/emails, per address added, whoever adds it. */
  addEmailPerTarget: { limit: 10, periodMs: DAY },
  /** Mails we send to one address: verification codes (add, resend) and reset links. */
  mailPerTarget: { limit: 5, periodMs: HOUR },
  /** Wrong verification codes for one account's address, across resends (a resend re-arms nothing). */
  codeGuessPerAddress: { limit: 5, periodMs: DAY },
  /** Failed logins from one client network, whatever the e-mail (spraying). */
  loginFailPerIp: { limit: 30, periodMs: 15 * MINUTE },
  /** Failed logins for one e-mail from one client network (guessing one account). */
  loginFailPerTargetNet: { limit: 5, periodMs: 15 * MINUTE },
  /**
   * Failed logins for one e-mail from anywhere: the ceiling for a botnet spread over many
   * networks. Reaching it throttles password logins for the address; its owner still
   * signs in through a reset mail (POST /users/forgot-password).
   */
  loginFailPerTarget: { limit: 100, periodMs: HOUR },
  /**
   * Joins at /primus (tt.live bots, workers/primus.ts), per token: each opens a room socket,
   * so a bot in a join loop is slowed; a bot that rejoins after resets never gets near it.
   */
  botJoinPerToken: { limit: 30, periodMs: MINUTE },
  /** Wrong current passwords at POST /users/change-password, per account. */
  changePassword: { limit: 5, periodMs: 15 * MINUTE },
  /** Profile and cover picture uploads, per account. */
  pictureUpload: { limit: 20, periodMs: HOUR },
  /** Room edits (live state, settings), per room. */
  roomEdit: { limit: 30, periodMs: MINUTE },
  /**
   * GET /rooms/discover, per client network: each search asks up to 60 live rooms for their
   * crowd, so a scripted flood would land on every room's object. A person browsing,
   * filtering and reloading stays far below two a second.
   */
  roomDiscoverPerIp: { limit: 120, periodMs: MINUTE },
  /**
   * Notifications a room's staff send to the people in it, per room (owners are ordinary
   * users; each message reaches everyone in the room). Services are not counted.
   */
  roomNotification: { limit: 5, periodMs: HOUR },
  /** A DJ's own announcements to their fans (POST /notifications/dj-fans), per DJ. */
  fanAnnouncement: { limit: 1, periodMs: HOUR },
  /**
   * Own profile edits that change what rooms show (nickname, avatar, colour), per account:
   * each one tells every room the person has a socket in (tellUserRooms), so a scripted
   * loop of renames would land on all of them. Trying on avatars stays far below this.
   */
  roomFaceEdit: { limit: 60, periodMs: HOUR },
  /** Moderator notes (POST /moderation-comments), per moderator. */
  moderationComment: { limit: 60, periodMs: HOUR },
  /** Sign-in codes texted to one number (send-code), whoever asks. */
  textCodePerPhone: { limit: 5, periodMs: HOUR },
  /** Sign-in codes asked for from one client network, whatever the numbers. */
  textCodePerIp: { limit: 10, periodMs: HOUR },
  /**
   * Sign-in codes texted into one number range (lib/phones.ts `phonePrefix`, "+44 740"):
   * the toll-fraud stop. A pumping attack spreads over many networks and numbers but texts
   * one range of premium or hijacked numbers; past this, that range gets no more texts.
   */
  textCodePerPrefix: { limit: 30, periodMs: HOUR },
  /** Wrong sign-in codes for one number, across resends (each code also dies after 5). */
  codeGuessPerPhone: { limit: 10, periodMs: DAY },
  /** Phone validations from one client network: each may cost a carrier lookup. */
  phoneValidatePerIp: { limit: 60, periodMs: HOUR },
  /** Direct messages one account sends, to anyone (a flood fills someone's inbox). */
  dmPerSender: { limit: 30, periodMs: MINUTE },
  /** New conversations one account starts (writing to strangers is how spam works). */
  dmNewConversationPerSender: { limit: 20, periodMs: HOUR },
  /** OAuth link requests (GET /auth/{provider}/authorize-url), per account: each writes a state row. */
  oauthLinkPerAccount: { limit: 30, periodMs: HOUR },
  /** Discord sign-in requests and code exchanges without an account, per client network. */
  oauthSignInPerIp: { limit: 30, periodMs: HOUR },
  /**
   * Unverified songs one account keeps from track imports (issue 18: with the provider not
   * configured, an import is the importer's own row): each is a row nobody else vets.
   */
  unverifiedImportPerAccount: { limit: 300, periodMs: DAY },
  /** Background playlist imports one account starts (each may ask providers 100 times). */
  crateImportPerAccount: { limit: 30, periodMs: HOUR },
  /**
   * YouTube search.list calls per API key (key: a hash of it): each costs 100 of the
   * default 10,000 daily quota units; past 90 a day, search answers without YouTube rather
   * than spending the units that video lookups need.
   */
  youtubeSearchPerDay: { limit: 90, periodMs: DAY },
  /**
   * Music analysis jobs one account starts (similar tracks): each is a provider job. Asking
   * about a song already queued or analysed costs nothing.
   */
  analysisEnqueuePerAccount: { limit: 60, periodMs: HOUR },
  /**
   * Similar-track answers one account has computed (cache hits are free): each reads up to a
   * few thousand D1 rows per seed. A DJ's panel asks once per song.
   */
  similarQueryPerAccount: { limit: 60, periodMs: MINUTE },
} as const satisfies Record<string, Rule>;

export type RuleName = keyof typeof RULES;

export const isRuleName = (name: unknown): name is RuleName =>
  typeof name === "string" && Object.hasOwn(RULES, name);

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  let s = text;
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const v4 = s.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    if (!IPV4.test(v4[2])) return null;
    const [a, b, c, d] = v4[2].split(".").map(Number);
    s = `${v4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const part = (h: string) => (h === "" ? [] : h.split(":"));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

/**
 * The client network a per-IP limit counts against, from `CF-Connecting-IP`: an IPv4
 * address as is; an IPv6 address by its /64 (one subscriber usually gets a whole /64, so
 * keying by the full address would give an attacker 2^64 budgets); an IPv4-mapped IPv6
 * address as the IPv4 address it carries. Without the header (only outside Cloudflare:
 * local runs, tests) every request shares "unknown".
 */
export function clientNet(header: string | null | undefined): string {
  const raw = (header ?? "").trim().toLowerCase();
  if (!raw) return "unknown";
  if (IPV4.test(raw)) return raw;
  const bare = raw.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const g = ipv6Groups(bare);
  if (!g) return `other:${raw.slice(0, 64)}`;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)
    return [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255].join(".");
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** The per-target key: the e-mail address, lowercase, so case cannot multiply budgets. */
export const targetKey = (email: string) => email.trim().toLowerCase();

/**
 * Room: one durable object per room, reached at `/parties/room/<name>` (partyserver, with
 * hibernation). It serialises every seat change, vote and play of its room. This file keeps
 * the partyserver hooks and the RPC methods; its pieces, one job each, are listed in
 * room/README.md.
 *
 * Invariants:
 * - Every connection carries a caller verified by the gateway against D1 (room/identity.ts
 *   keeps it current: refreshUser closes or downgrades), and a user stays present
 *   through a 30 s grace after their last socket (room/presence.ts says how).
 * - After eviction the object starts with no memory: the constructor rebuilds everything
 *   from SQLite and the live sockets, puts users without a socket into their grace, re-arms
 *   the alarm and the tick, and restarts a rotation that was interrupted between songs.
 * - One alarm serves every schedule (song end, grace ends, role expiries, AFK checks, retries): it is
 *   always set to the earliest entry of `room_schedule`.
 * - A frame that fails to parse, is over its budget, or an action the rules refuse (the one
 *   table in shared/permissions.ts), gets `{ name: "error" }` on that socket alone and
 *   changes nothing.
 * - RPC methods bypass partyserver's onStart; the constructor's blockConcurrencyWhile has
 *   prepared the object first. Callers use the typed stub `DurableObjectStub<Room>`.
 */
import { Server, type Connection, type ConnectionContext, type WSMessage } from "partyserver";
import { z } from "zod";
import type { ChatMessage, RoomState, ServerMessage } from "../shared/protocol";
import { roomSettingsSchema, type RoomRoleName, type RoomSettings } from "../shared/rooms";
import type { Env } from "../workers/env";
import { StageActions, type Caller, type Who } from "./room/actions";
import { Blocks } from "./room/blocks";
import { Buckets } from "./room/budget";
import { Dispatcher } from "./room/dispatch";
import { Notices } from "./room/notices";
import { ChatActions } from "./room/chat";
import { crowd, type CrowdArgs, type CrowdResult } from "./room/crowd";
import { ConsumableDeliveries, type DeliveryArgs, type DeliveryResult } from "./room/consumables";
import { DEMO_KEY, DemoDj } from "./room/demo-dj";
import { Effects } from "./room/effects";
import { CONNECT_MSG } from "./room/messages";
import { Moderation, roleKey } from "./room/moderation";
import { Playback } from "./room/playback";
import { FreePlays, GUEST_TAG } from "./room/free-plays";
import { Identity, type AccountNow } from "./room/identity";
import { callerOf, GRACE_PREFIX, Presence, tokenRoleOf, userTag } from "./room/presence";
import type { CallerHeader, Facts } from "./room/presence";
import { Publisher, send } from "./room/publisher";
import {
  chatPostArgs,
  chatReadArgs,
  refreshArgs,
  relayConfig,
  roleArgs,
  roomSummary,
  type BlocksNow,
  type RoomSummary,
} from "./room/rpc";
import { djFacts } from "./room/library";
import { RELAY_HEADER, RELAY_LINK_TAG } from "./room/relay-link";
import { Relays, type RelayStats } from "./room/relays";
import { RoomStorage } from "./room/storage";
import { TtfmDialect } from "./room/ttfm-dialect";
import { PEOPLE_KEYS, STATE_KEYS } from "./room/view";
import { Waitlist } from "./room/waitlist";

export type { Caller } from "./room/actions";
export type { RoomSummary } from "./room/rpc";

// `& Cloudflare.Env`: partyserver requires its Env to extend the global Cloudflare.Env,
// which the test types widen (TEST_MIGRATIONS); at run time both are the same object.
export class Room extends Server<Env & Cloudflare.Env> {
  static options = { hibernate: true };

  readonly #storage: RoomStorage;
  readonly #publisher: Publisher<Caller>;
  readonly #playback: Playback;
  readonly #actions: StageActions;
  readonly #chat: ChatActions;
  readonly #moderation: Moderation;
  readonly #deliveries: ConsumableDeliveries;
  readonly #presence: Presence;
  readonly #effects: Effects;
  readonly #notices: Notices;
  readonly #identity: Identity;
  readonly #freePlays: FreePlays;
  readonly #blocks: Blocks;
  readonly #dispatcher: Dispatcher;
  readonly #demo: DemoDj;
  readonly #waitlist: Waitlist;
  readonly #relays: Relays;
  /** tt.live bots' sockets (the /primus bridge): their dialect, one encoder each. */
  readonly #ttfm: TtfmDialect;
  /** Every frame's budget (room/budget.ts), shared with the chat's. */
  readonly #budgets = new Buckets();
  /** Sockets partyserver has wrapped and handed to onMessage (see webSocketMessage). */
  readonly #wrapped = new WeakSet<WebSocket>();
  /** The alarm time last set (undefined: not since the object started; null: none). */
  #alarmAt: number | null | undefined = undefined;

  constructor(ctx: DurableObjectState, env: Env & Cloudflare.Env) {
    super(ctx, env);
    this.#storage = new RoomStorage(ctx.storage.sql, () => this.name);
    this.#blocks = new Blocks(ctx.storage.sql, (u) => this.getConnections(userTag(u)));
    this.#relays = new Relays(ctx.storage.sql, env, {
      tags: (caller) => this.#presence.tags(caller),
      join: (c, caller, facts) => this.#join(c, caller, facts),
      message: (c, raw) => this.onMessage(c, raw),
      gone: (c) => this.onClose(c),
      refusal: () => this.#identity.refusal(),
      state: () => this.#publisher.stateMessage(),
    });
    this.#publisher = new Publisher<Caller>(
      ctx,
      this.#storage,
      () => this.getConnections<Caller>(),
      // What follows a socket's first full state: its own vote (a reload shows it without
      // asking), a guest's free plays.
      (c) => {
        this.#sendYourVote(c);
        this.#freePlays.tell(c);
      },
      this.#blocks,
      this.#relays,
    );
    this.#playback = new Playback(
      env,
      this.#storage,
      this.#publisher,
      () => this.#rearm(),
      (uuid, m) => this.#sendTo(uuid, m),
      (text) => this.#chat.roomMessage(text),
      (playId) => this.#freePlays.songStarted(playId),
      (uuid) => this.#demo.exempt(uuid),
    );
    this.#effects = new Effects(env, this.#storage.effects, (due) => {
      this.#storage.schedule("outbox", due);
      this.#rearm();
    });
    this.#actions = new StageActions(
      env,
      this.#storage,
      this.#publisher,
      this.#playback,
      this.#effects,
    );
    this.#chat = new ChatActions(this.#storage, this.#publisher, this.#budgets, this.#effects);
    this.#notices = new Notices(
      this.#storage,
      this.#effects,
      () => this.getConnections<Caller>(),
      (u) => this.#presence.hasSocket(u),
    );
    this.#moderation = new Moderation(
      this.#storage,
      this.#publisher,
      this.#playback,
      this.#chat,
      (u) => this.getConnections(userTag(u)),
      (u, r, e) => this.setRole(u, r, e),
    );
    this.#deliveries = new ConsumableDeliveries(this.#storage, this.#publisher);
    this.#identity = new Identity(
      ctx.storage.sql,
      this.#storage,
      this.#publisher,
      this.#playback,
      (u) => this.getConnections<Caller>(userTag(u)),
      tokenRoleOf,
    );
    this.#freePlays = new FreePlays(
      this.#storage,
      this.#effects,
      () => this.getConnections<Caller>(GUEST_TAG),
      (u) => this.getConnections<Caller>(userTag(u)),
    );
    this.#presence = new Presence(
      env,
      this.#storage,
      this.#publisher,
      this.#moderation,
      this.#identity,
      this.#playback,
      this.#freePlays,
      (u) => this.getConnections(userTag(u)),
      () => this.#rearm(),
    );
    this.#waitlist = new Waitlist(env, this.#storage, this.#publisher, this.#playback, (u, m) =>
      this.#sendTo(u, m),
    );
    this.#playback.seatFreed = () => this.#waitlist.fill();
    this.#dispatcher = new Dispatcher({
      storage: this.#storage,
      publisher: this.#publisher,
      actions: this.#actions,
      playback: this.#playback,
      chat: this.#chat,
      notices: this.#notices,
      blocks: this.#blocks,
      moderation: this.#moderation,
      budgets: this.#budgets,
      waitlist: this.#waitlist,
      sendTo: (uuid, m) => this.#sendTo(uuid, m),
    });
    this.#demo = new DemoDj(
      env,
      this.#storage,
      this.#publisher,
      this.#playback,
      () => this.#rearm(),
      () => this.#identity.refusal() === null,
    );
    this.#ttfm = new TtfmDialect(this.#storage, this.#publisher, this.#dispatcher, this.#budgets);
    void ctx.blockConcurrencyWhile(async () => this.#boot()); // not onStart: RPC skips it
  }

  #boot() {
    const now = Date.now();
    // Links from before a restart: the sockets behind them are forgotten, so they link again.
    this.#relays.recover(super.getConnections(RELAY_LINK_TAG));
    this.#publisher.ensurePublished();
    this.#publisher.recover((c) => this.#ttfm.attach(c));
    // Users whose sockets vanished without a close (eviction) start their grace now.
    this.#presence.recover(now);
    this.#blocks.recover();
    this.#rearm();
    if (this.#storage.frames.pending()) this.#publisher.arm();
    // A rotation cut off between two songs (eviction during a D1 read) resumes.
    if (!this.#storage.playing() && this.#storage.djs().length) void this.#playback.advance();
    else if (this.#storage.unrecordedPlays().length) void this.#playback.retryOutbox();
    // Side effects owed when the object was evicted go out now.
    if (this.#storage.effects.pending().length) void this.#effects.drain();
    if (this.#demo.uuid()) void this.#demo.check(true); // the demo DJ takes its seat again
  }

  getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    if (ctx.request.headers.has(RELAY_HEADER)) return [RELAY_LINK_TAG];
    return this.#presence.tags(callerOf(ctx));
  }

  async onConnect(connection: Connection<Caller>, ctx: ConnectionContext) {
    // A relay's link (the gateway deletes this header from every client's request).
    const relay = ctx.request.headers.get(RELAY_HEADER);
    if (relay !== null) return this.#relays.opened(connection, Number(relay));
    this.#relays.arrived();
    await this.#join(connection, callerOf(ctx), null);
  }

  /** A socket arrives, here or at a relay (the relay read its DJ facts). A bot's encoder
   * is set before the tick that sends it anything (its full state is a browser's). */
  async #join(c: Connection<Caller>, caller: CallerHeader | null, facts: Facts | null) {
    await this.#presence.connect(c, caller, facts);
    this.#ttfm.attach(c);
  }

  /** The room's user sockets, wherever they are held: its own (relay links left out) and its relays'. */
  override *getConnections<T = unknown>(tag?: string): Generator<Connection<T>> {
    for (const c of super.getConnections<T>(tag)) if (tag || !this.#relays.isLink(c.id)) yield c;
    yield* this.#relays.connections<T>(tag);
  }

  /**
   * partyserver checks every frame's socket by deserialising its attachment (about a tenth
   * of what a vote costs the room); a socket it has handed to onMessage once is known to be
   * its and wrapped (partyserver wraps the socket object itself), so its later frames go
   * straight there. The first frame of each socket takes partyserver's whole path.
   */
  override async webSocketMessage(ws: WebSocket, message: WSMessage) {
    if (!this.#wrapped.has(ws)) return super.webSocketMessage(ws, message);
    try {
      await this.onMessage(ws as Connection<Caller>, message);
    } catch (e) {
      console.error(`room ${this.name}: webSocketMessage`, e); // as partyserver does
    }
  }

  async onMessage(connection: Connection<Caller>, raw: WSMessage) {
    this.#wrapped.add(connection);
    if (this.#relays.isLink(connection.id))
      return this.#relays.receive(connection, raw as string | ArrayBuffer);
    // A socket closed for flooding may still have thousands of frames in flight: they are
    // dropped unread, so the sockets behind them in the object's queue wait for nothing.
    if (connection.readyState !== WebSocket.OPEN) return;
    const who = connection.state;
    if (!who) return; // refused at connect; its close is under way
    if (who.dialect === "ttfm") return this.#ttfm.onMessage(connection, who, raw);
    const refused = await this.#dispatcher.run(connection, who, raw, (c) => {
      // A socket whose full state is still coming (it connected this tick) gets it once,
      // and its yourVote after it (onFullState), instead of a second state now.
      if (c.state?.needsState) return;
      this.#publisher.sendState(c);
      this.#sendYourVote(c);
    });
    if (refused && !refused.sent)
      this.#send(connection, {
        name: "error",
        params: { message: refused.error, ...(refused.action ? { action: refused.action } : {}) },
      });
  }

  onClose(connection: Connection<Caller>) {
    if (this.#relays.isLink(connection.id)) return this.#relays.closed(connection);
    this.#budgets.forgetSocket(connection.id);
    this.#ttfm.forget(connection.id);
    this.#socketGone(connection);
  }

  onError(connection: Connection<Caller>, error: unknown) {
    // A socket that errors may never deliver a close; treat it as gone. A later close finds
    // the grace already running and changes nothing.
    console.error(`room ${this.name}: socket error`, error);
    if (this.#relays.isLink(connection.id)) return this.#relays.closed(connection);
    this.#socketGone(connection);
  }

  #socketGone(connection: Connection<Caller>) {
    this.#publisher.forget(connection.id);
    this.#presence.socketGone(connection);
    const who = connection.state;
    if (who && !this.#presence.hasSocket(who.uuid, connection.id)) this.#blocks.forget(who.uuid);
  }

  async onAlarm() {
    const now = Date.now();
    // Only what is due runs: an alarm delivered twice or early (at-least-once delivery) must
    // not end a song or a grace before its time. Tests make an entry due instead.
    this.#alarmAt = null; // this alarm is spent: the next #rearm sets one whatever it was
    const due = this.#storage.dueBy(now);
    for (const { key } of due) {
      this.#storage.unschedule(key);
      if (key === "song-end") void this.#playback.end("playedSong");
      else if (key === "advance") void this.#playback.advance();
      else if (key === "outbox") {
        void this.#playback.retryOutbox();
        void this.#effects.drain();
      } else if (key.startsWith(GRACE_PREFIX))
        this.#presence.graceEnded(key.slice(GRACE_PREFIX.length));
      else if (key.startsWith("role:")) this.#moderation.roleExpired(key);
      else if (key.startsWith("afk:")) this.#playback.afkDue(key.slice("afk:".length), now);
      else if (key === DEMO_KEY) void this.#demo.check(true);
      else console.error(`room ${this.name}: unknown schedule entry ${key}`);
    }
    this.#rearm();
    await Promise.all([this.#playback.idle(), this.#effects.idle(), this.#demo.idle()]);
  }

  /** Plain HTTP to a room: nothing here; the room-service uses the RPC methods below. */
  onRequest(request: Request) {
    const { pathname } = new URL(request.url);
    return Response.json(
      {
        statusCode: 404,
        message: CONNECT_MSG.noRoute(request.method, pathname),
        error: "Not Found",
      },
      { status: 404 },
    );
  }

  // ---- RPC (the room-service) ------------------------------------------------------------

  /** Stores the room's settings (the room-service owns the D1 row) and tells every client. */
  applySettings(settings: RoomSettings): void {
    const next = roomSettingsSchema.parse(settings);
    this.#storage.setSettings(next);
    // A smaller booth drops the DJs beyond it, from the back (the current DJ is first).
    for (const d of this.#storage.djs().slice(next.numberOfDjs).reverse())
      this.#playback.removeFromStage(d.uuid, "updatedRoomSettings");
    // isLive and liveAudio decide whether a song plays (playback.ts onAir).
    this.#playback.settingsChanged();
    // djType and the owner change who may DJ, so the user lists are recomputed too.
    this.#publisher.mark(["settings", ...PEOPLE_KEYS], "updatedRoomSettings");
    void this.#demo.check(); // a demo room's DJ sits down once the room is set up
  }

  /** The full state clients hold, with every change so far published. */
  getState(): RoomState {
    this.#publisher.flush();
    return this.#publisher.publishedState();
  }

  /** Present users (a dropped socket still counts during its grace), guests left out. */
  getUserUuids(): string[] {
    return this.#storage
      .users()
      .filter((u) => !u.guest)
      .map((u) => u.uuid);
  }

  /** Grants a room role, with an optional expiry (epoch ms or an ISO date). */
  setRole(userUuid: string, role: RoomRoleName, expirationTime: number | string | null): void {
    const a = roleArgs.parse({ userUuid, role, expirationTime });
    this.#storage.setRole(a.userUuid, a.role, a.expirationTime);
    if (a.expirationTime !== null)
      this.#storage.schedule(roleKey(a.userUuid, a.role), a.expirationTime);
    else this.#storage.unschedule(roleKey(a.userUuid, a.role));
    this.#rearm();
    if (a.role === "banned" && (a.expirationTime === null || a.expirationTime > Date.now()))
      this.#moderation.eject(a.userUuid, "banned");
    if (a.role === "djDisabled" && this.#storage.djs().some((d) => d.uuid === a.userUuid)) {
      this.#playback.removeFromStage(a.userUuid, "updatedRoomSettings");
    }
    this.#publisher.mark(["settings", ...PEOPLE_KEYS], "updatedRoomSettings");
  }

  removeRole(userUuid: string, role: RoomRoleName): boolean {
    const a = roleArgs.parse({ userUuid, role, expirationTime: null });
    const removed = this.#storage.removeRole(a.userUuid, a.role);
    this.#storage.unschedule(roleKey(a.userUuid, a.role));
    this.#rearm();
    if (removed) this.#publisher.mark(["settings", ...PEOPLE_KEYS], "updatedRoomSettings");
    return removed;
  }

  /** Takes a user out for 5 minutes (the room-service's kick, or a moderator's). */
  kickUser(userUuid: string, reason: string, byUuid: string | null): boolean {
    return this.#moderation.kick(
      z.string().min(1).max(64).parse(userUuid),
      z
        .string()
        .max(300)
        .parse(reason ?? ""),
      byUuid,
    );
  }

  /** Makes `newOwnerUuid` the only owner (settings and role rows). */
  changeOwner(newOwnerUuid: string): void {
    const uuid = z.string().min(1).max(64).parse(newOwnerUuid);
    for (const r of this.#storage.roles(0))
      if (r.role === "owner" && r.user_uuid !== uuid)
        this.#storage.removeRole(r.user_uuid, "owner");
    this.#storage.setSettings({ ...this.#storage.settings(), ownerUuid: uuid });
    this.setRole(uuid, "owner", null);
  }

  /**
   * Empties the chat history (the room-service's DELETE /rooms/conversation/{id}); every
   * client sees `chat` become [] in the next frame. Answers how many lines were removed.
   */
  clearChat(): number {
    const removed = this.#storage.chat.clear();
    this.#publisher.mark(["chat"], "updatedChat");
    return removed;
  }

  /** Posts a bought consumable into the chat (the merch-service's purchase); idempotent by purchaseId. */
  deliverConsumable(args: DeliveryArgs): DeliveryResult {
    return this.#deliveries.deliver(args);
  }

  /** Whether a purchase was delivered here; if not, it never will be (consumables.ts close). */
  closeConsumable(purchaseId: string): { delivered: boolean } {
    return this.#deliveries.close(purchaseId);
  }

  /** The chat-token call GET /rooms/{id}/chat: a chat member's history page (room/chat.ts overHttp). */
  readChat(args: unknown): { error: string | null; messages: ChatMessage[] } {
    const a = chatReadArgs.parse(args);
    const error = this.#chat.overHttp(a.userUuid);
    return { error, messages: error ? [] : this.#chat.page(a.before, a.limit) };
  }

  /** The chat-token call POST /rooms/{id}/chat: a socket's sendChat, with the profile read from D1 now. */
  async postChat(args: unknown): Promise<{ error: string | null; message: ChatMessage | null }> {
    const a = chatPostArgs.parse(args);
    const facts = await djFacts(this.env, a.userUuid);
    const who: Who = {
      uuid: a.userUuid,
      tokenType: a.tokenType,
      roles: a.roles,
      sv: 0,
      needsState: false,
      ...facts,
    };
    return this.#chat.post(who, { action: "sendChat", ...a.message });
  }

  /** Records `userUuid` as a member of the room's chat (the local CometChat group join). */
  joinChat(userUuid: string): { joinedAt: number; created: boolean; members: number } {
    const r = this.#storage.chat.join(z.string().min(1).max(64).parse(userUuid), Date.now());
    return { ...r, members: this.#storage.chat.memberCount() };
  }

  /**
   * What a room card shows, in one cheap call (no published-state read): who is present
   * (guests left out), how many DJs, and a small summary of the song playing with its DJ's name.
   */
  getSummary(): RoomSummary {
    return roomSummary(this.#storage, this.getUserUuids());
  }

  /** Chat history before the message `before` (or the newest), oldest first, at most 50. */
  getChat(before: string | null = null, limit = 50): ChatMessage[] {
    return this.#chat.page(before, limit);
  }

  /**
   * Clears the live state (stage, song, votes, users whose grace is running) but keeps
   * settings and roles; every client is told to rejoin within 2 s (seed 001 Room connection).
   */
  resetRoom(): void {
    const frame = JSON.stringify({
      name: "roomReset",
      params: { rejoinWithinMs: 2000 },
    } satisfies ServerMessage);
    for (const c of this.getConnections()) send(c, frame);
    this.#clearLive(false);
  }

  /**
   * The room was deleted (its D1 row is gone): a tombstone first, so no socket enters again,
   * then every socket is told and closed, and the live state goes with everyone in it.
   */
  deleteRoom(): void {
    this.#identity.tombstone(Date.now());
    for (const c of this.getConnections()) this.#identity.close(c, CONNECT_MSG.deleted);
    this.#clearLive(true);
  }

  /**
   * An account changed in D1 (roles, sessions, deactivation, a ban; blocks; its profile): its
   * sockets close (`null`, a newer session; with `notice` as a kick, not retried) or take the new
   * roles, blocks and profile. Answers whether the room held the user, so it can be forgotten.
   */
  refreshUser(uuid: string, account: AccountNow | null, blocks?: BlocksNow, notice?: string) {
    const a = refreshArgs.parse({ userUuid: uuid, account, blocks, notice });
    if (a.blocks) this.#publisher.setBlocks(a.userUuid, a.blocks.list, a.blocks.at);
    return this.#identity.refresh(a.userUuid, a.account, a.notice);
  }

  /** How many relays the gateway shards a new socket over (0: the room takes it itself). */
  relayPlacement(): { relays: number } {
    return { relays: this.#relays.placement(this.#publisher.held) };
  }

  /** Sets this room's relay threshold and size if given (tests, the bench: dev only); its figures. */
  relayStats(config?: { threshold: number; perRelay: number }): RelayStats {
    if (config) this.#relays.configure(relayConfig.parse(config));
    return this.#relays.stats(this.#publisher.held, this.#publisher.ticks);
  }

  /** The bench's synthetic crowd and votes (room/crowd.ts); refused outside development and test. */
  async crowd(args: CrowdArgs): Promise<CrowdResult> {
    const result = crowd(this.env, this.ctx, this.#storage, this.#actions, this.#publisher, args);
    if (args.settle) await this.#effects.idle(); // the outbox the votes filled is sent
    return result;
  }

  #clearLive(everyone: boolean) {
    this.#playback.stop(false, "removedDj");
    this.#storage.clearDjs();
    this.#storage.waitlist.clear();
    this.#storage.votes.clear();
    this.#storage.unscheduleLike(GRACE_PREFIX);
    this.#storage.unscheduleLike("afk:");
    this.#storage.unschedule("advance");
    for (const u of this.#storage.users())
      if (everyone || u.disconnected_at !== null) this.#storage.deleteUser(u.uuid);
    this.#rearm();
    this.#publisher.mark(STATE_KEYS, "removedDj");
    this.#publisher.flush();
  }

  /**
   * The alarm at the schedule's earliest entry. Called on every schedule change (each
   * socket's close starts a grace), so it reads one index step and writes the alarm only
   * when its time moves: a thousand closes at once cost a thousand cheap calls, not a
   * thousand schedule scans and alarm writes.
   */
  #rearm() {
    const first = this.#storage.firstDue();
    if (first === this.#alarmAt) return;
    this.#alarmAt = first;
    if (first !== null) void this.ctx.storage.setAlarm(first);
    else void this.ctx.storage.deleteAlarm();
  }

  #send(connection: Connection, message: ServerMessage) {
    send(connection, JSON.stringify(message));
  }

  /** The caller's own vote right after a full state (it is about the song in that state). */
  #sendYourVote(connection: Connection<Caller>) {
    const who = connection.state;
    if (!who) return;
    if (who.tokenType !== "ghost")
      this.#send(connection, {
        name: "yourVote",
        params: { songVotes: this.#actions.yourVote(who.uuid) },
      });
  }

  #sendTo(uuid: string, message: ServerMessage) {
    if (message.name === "youAreNext") this.#notices.upNext(uuid); // away: a push
    const text = JSON.stringify(message);
    for (const c of this.getConnections(userTag(uuid))) send(c, text);
  }
}

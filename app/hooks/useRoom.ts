import { useCallback, useEffect, useRef, useState } from "react";
import {
  CLOSE_FLOODING,
  CLOSE_KICKED,
  CLOSE_NO_ROOM,
  type ClientMessage,
  type QueueNoticeKind,
  type RoomState,
  type ServerMessage,
  type SongVotes,
} from "../../shared/protocol";
import { applyPatch } from "../../shared/json-patch";
import { createClockEstimator, reconnectDelay, rejoinDelay } from "../../shared/room-sync";

/**
 * The live room over partysocket (DESIGN.md, "The room protocol").
 *
 * - The full state arrives as `roomState` with a seq; after that a patch applies only when
 *   its seq is the next one. A gap or a failed patch sends `joinRoom` and the next
 *   `roomState` replaces the state.
 * - A (re)connect gets the full state without asking (the room sends it first, once). Reconnects back off exponentially with full jitter
 *   (`reconnectDelay`), so a crowd dropped at once does not return in one wave. `roomReset`
 *   rejoins after a random delay below `rejoinWithinMs`; `kickedFromRoom` closes the socket
 *   for good, and so do the closes for a room that is gone (4004) or a flood (4008).
 * - The server clock lives on the monotonic clock (performance.now), never on Date.now: a
 *   page whose wall clock is wrong or is stepped keeps the room's time. First from
 *   `roomState.serverTime`, then from pongs (a burst on connect, then one every 15 s): the
 *   fastest round trip among the last few (`createClockEstimator`).
 */
/** `closed`: the room is gone (deleted, not open) or this page flooded it; no retry. */
export type RoomStatus = "connecting" | "open" | "reconnecting" | "kicked" | "closed";

export interface RoomError {
  message: string;
  action?: string;
  /** Increases per error, so the same text twice still shows. */
  id: number;
}

export interface RoomConnection {
  status: RoomStatus;
  state: RoomState | null;
  seq: number;
  error: RoomError | null;
  /** Why the room removed this user (kickedFromRoom), once kicked. */
  kickReason: string | null;
  /** Why the room closed this page for good (the close reason), once `closed`. */
  closedReason: string | null;
  /** The room told this user they are next up (cleared when their song starts). */
  youAreNext: boolean;
  /**
   * This user's own vote as the room last confirmed it (the private `yourVote` echo: after a
   * vote from any of the user's tabs, and on every join, so a reload shows it), tagged with
   * the play it was about. A vote for another play than the one showing is stale.
   */
  yourVote: { playId: string | null; songVotes: SongVotes } | null;
  /**
   * The room's last word about this user's queue or seat (queueNotice, seatedFromWaitlist),
   * with an id that grows per notice so the same kind twice still shows.
   */
  queueNotice: { kind: QueueNoticeKind | "seated"; songs: number; id: number } | null;
  /** A guest's songs heard against the free-play limit (null: not a guest, or not told yet). */
  freePlays: { used: number; limit: number } | null;
  /**
   * Who just liked the song, by uuid: a counter bumped on each of their `jump` animations
   * (the client sends one with every like), so a floor avatar can bob once per like.
   */
  jumps: Record<string, number>;
  /** Server time now (epoch ms), by the estimated clock offset. */
  serverNow: () => number;
  send: (msg: ClientMessage) => boolean;
}

export const PING_EVERY_MS = 15_000;

/**
 * The room socket. It carries no token: the browser sends the session (or kept guest)
 * cookie with the upgrade, and the gateway honours it from our own pages only
 * (workers/room-connect.ts). `myUuid` is who the page says we are; none, no socket.
 */
export function useRoom(
  partyPath: string | null,
  myUuid: string | null,
  ticket: string | null = null,
): RoomConnection {
  const [status, setStatus] = useState<RoomStatus>("connecting");
  const [state, setState] = useState<RoomState | null>(null);
  const [seq, setSeq] = useState(0);
  const [error, setError] = useState<RoomError | null>(null);
  const [youAreNext, setYouAreNext] = useState(false);
  const [queueNotice, setQueueNotice] = useState<RoomConnection["queueNotice"]>(null);
  const [kickReason, setKickReason] = useState<string | null>(null);
  const [closedReason, setClosedReason] = useState<string | null>(null);
  const [yourVote, setYourVote] = useState<RoomConnection["yourVote"]>(null);
  const [freePlays, setFreePlays] = useState<RoomConnection["freePlays"]>(null);
  const [jumps, setJumps] = useState<Record<string, number>>({});
  const clockRef = useRef(createClockEstimator());
  const socketRef = useRef<{ send: (data: string) => void; readyState: number } | null>(null);
  const docRef = useRef<{ state: RoomState | null; seq: number }>({ state: null, seq: 0 });

  // Before the first state, the local clock is all there is (nothing is timed by it yet).
  const serverNow = useCallback(
    () => clockRef.current.serverAt(performance.now()) ?? Date.now(),
    [],
  );
  const send = useCallback((msg: ClientMessage) => {
    const ws = socketRef.current;
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }, []);

  useEffect(() => {
    if (!partyPath || !myUuid) return;
    let stopped = false;
    let errorId = 0;
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let ws: import("partysocket").WebSocket | null = null;
    let pingTimer: ReturnType<typeof setInterval> | null = null;

    const raw = (msg: ClientMessage) => {
      if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
    };
    // clientTime is monotonic (the room echoes it untouched): the round trip is exact.
    const ping = () => raw({ action: "ping", clientTime: performance.now() });
    const join = () => raw({ action: "joinRoom" });

    const onMessage = (ev: MessageEvent) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      if (msg.name === "roomState") {
        // Until a pong arrives, the state's own clock is the best estimate we have.
        clockRef.current.anchor(msg.serverTime, performance.now());
        docRef.current = { state: msg.state, seq: msg.seq };
        setState(msg.state);
        setSeq(msg.seq);
        setStatus("open");
        return;
      }
      if ("statePatch" in msg) {
        const doc = docRef.current;
        if (!doc.state) return;
        if (msg.seq <= doc.seq) return; // already in the state we hold
        if (msg.seq !== doc.seq + 1) return join();
        try {
          const next = applyPatch(doc.state, msg.statePatch);
          docRef.current = { state: next, seq: msg.seq };
          setState(next);
          setSeq(msg.seq);
        } catch {
          join();
        }
        return;
      }
      switch (msg.name) {
        case "pong":
          clockRef.current.addPong(msg.params.clientTime, performance.now(), msg.params.serverTime);
          return;
        case "error":
          setError({ message: msg.params.message, action: msg.params.action, id: ++errorId });
          return;
        case "roomReset": {
          const t = setTimeout(() => {
            timers.delete(t);
            join();
          }, rejoinDelay(msg.params.rejoinWithinMs));
          timers.add(t);
          return;
        }
        case "kickedFromRoom":
          stopped = true;
          setKickReason(
            typeof msg.params?.reason === "string" && msg.params.reason ? msg.params.reason : null,
          );
          setStatus("kicked");
          ws?.close();
          return;
        case "youAreNext":
          setYouAreNext(true);
          return;
        case "queueNotice":
          setQueueNotice({ kind: msg.params.kind, songs: msg.params.songs, id: ++errorId });
          return;
        case "seatedFromWaitlist":
          setQueueNotice({ kind: "seated", songs: 0, id: ++errorId });
          return;
        case "freePlays":
          setFreePlays({ used: msg.params.used, limit: msg.params.limit });
          return;
        case "playedOneTimeAnimation": {
          // Votes are private to each voter (docs/DECISIONS.md), so a like reaches the others
          // as the voter's own "jump": the room relays it to every socket, the liker's too.
          const who = msg.params.userUuid;
          if (msg.params.animation === "jump" && typeof who === "string")
            setJumps((j) => ({ ...j, [who]: (j[who] ?? 0) + 1 }));
          return;
        }
        case "yourVote":
          // The echo carries no playId: it is about the song of the state held now (the room
          // sends it after the roomState it belongs to, on the same socket, in order).
          setYourVote({
            playId: docRef.current.state?.nowPlaying?.playId ?? null,
            songVotes: msg.params.songVotes ?? {},
          });
          return;
      }
    };

    void import("partysocket").then(({ WebSocket: ReconnectingWebSocket }) => {
      if (stopped) return;
      // partysocket's own wait is off (0 ms) and its delay has no jitter: the URL provider is
      // where a retry waits, `reconnectDelay(retry)` (0 before the first connect).
      const url = async () => {
        const retry = ws?.retryCount ?? 0;
        if (retry > 0) await new Promise((r) => setTimeout(r, reconnectDelay(retry)));
        const u = new URL(partyPath, location.href);
        u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
        if (ticket) u.searchParams.set("ticket", ticket);
        return u.href;
      };
      ws = new ReconnectingWebSocket(url, [], {
        maxRetries: Infinity,
        minReconnectionDelay: 0,
        maxReconnectionDelay: 0,
      });
      socketRef.current = ws;
      let opened = false;
      ws.addEventListener("open", () => {
        if (stopped) return;
        if (opened) setStatus("reconnecting");
        opened = true;
        // No joinRoom: the room sends every new socket its full state first, by itself.
        // A new connection may take another path: a fresh window, ten pings over the first
        // 9 s (a page is busiest while it loads, and only the fastest round trip counts, so
        // a few more chances), then one every 15 s.
        clockRef.current.reset();
        for (const d of [0, 250, 500, 1000, 1500, 2000, 3000, 4000, 6000, 9000]) {
          const t = setTimeout(() => (timers.delete(t), ping()), d);
          timers.add(t);
        }
      });
      ws.addEventListener("close", (e: CloseEvent) => {
        if (e.code === CLOSE_KICKED && !stopped) {
          // Banned or kicked: do not knock again.
          stopped = true;
          setStatus("kicked");
          ws?.close();
          return;
        }
        if ((e.code === CLOSE_NO_ROOM || e.code === CLOSE_FLOODING) && !stopped) {
          // The room is gone, or this page flooded it: a retry would be refused the same way.
          stopped = true;
          setClosedReason(e.reason || null);
          setStatus("closed");
          ws?.close();
          return;
        }
        if (!stopped)
          setStatus((s) =>
            s === "kicked" || s === "closed"
              ? s
              : docRef.current.state
                ? "reconnecting"
                : "connecting",
          );
      });
      ws.addEventListener("message", onMessage);
      pingTimer = setInterval(ping, PING_EVERY_MS);
    });

    return () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      if (pingTimer) clearInterval(pingTimer);
      ws?.close();
      socketRef.current = null;
    };
  }, [partyPath, myUuid, ticket]);

  // The "you're next" notice ends when the user's song starts.
  const myTurn = !!myUuid && state?.nowPlaying?.djUuid === myUuid;
  const onStage = !!myUuid && !!state?.djs.some((d) => d.uuid === myUuid);
  useEffect(() => {
    if (myTurn || !onStage) setYouAreNext(false);
  }, [myTurn, onStage]);

  return {
    status,
    state,
    seq,
    error,
    kickReason,
    closedReason,
    youAreNext,
    queueNotice,
    yourVote,
    freePlays,
    jumps,
    serverNow,
    send,
  };
}

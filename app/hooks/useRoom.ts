import { useCallback, useEffect, useRef, useState } from "react";
import {
  CLOSE_KICKED,
  type ClientMessage,
  type RoomState,
  type ServerMessage,
  type SongVotes,
} from "../../shared/protocol";
import { applyPatch } from "../../shared/json-patch";

/**
 * The live room over partysocket (DESIGN.md, "The room protocol").
 *
 * - The full state arrives as `roomState` with a seq; after that a patch applies only when
 *   its seq is the next one. A gap or a failed patch sends `joinRoom` and the next
 *   `roomState` replaces the state.
 * - Every (re)connect sends `joinRoom`. `roomReset` rejoins after a random delay below
 *   `rejoinWithinMs`; `kickedFromRoom` closes the socket for good.
 * - The server clock: offset = serverTime - local time, first from `roomState.serverTime`,
 *   then from ping/pong every 15 s (the sample with the shortest round trip wins).
 */
export type RoomStatus = "connecting" | "open" | "reconnecting" | "kicked";

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
  /** The room told this user they are next up (cleared when their song starts). */
  youAreNext: boolean;
  /**
   * This user's own vote as the room last confirmed it (the private `yourVote` echo: after a
   * vote from any of the user's tabs, and on every join, so a reload shows it), tagged with
   * the play it was about. A vote for another play than the one showing is stale.
   */
  yourVote: { playId: string | null; songVotes: SongVotes } | null;
  /** A guest's songs heard against the free-play limit (null: not a guest, or not told yet). */
  freePlays: { used: number; limit: number } | null;
  /** Server time now (epoch ms), by the estimated clock offset. */
  serverNow: () => number;
  send: (msg: ClientMessage) => boolean;
}

export const PING_EVERY_MS = 15_000;

export function useRoom(
  partyPath: string | null,
  token: string | null,
  myUuid: string | null,
  ticket: string | null = null,
): RoomConnection {
  const [status, setStatus] = useState<RoomStatus>("connecting");
  const [state, setState] = useState<RoomState | null>(null);
  const [seq, setSeq] = useState(0);
  const [error, setError] = useState<RoomError | null>(null);
  const [youAreNext, setYouAreNext] = useState(false);
  const [kickReason, setKickReason] = useState<string | null>(null);
  const [yourVote, setYourVote] = useState<RoomConnection["yourVote"]>(null);
  const [freePlays, setFreePlays] = useState<RoomConnection["freePlays"]>(null);
  const offsetRef = useRef(0);
  const bestRttRef = useRef(Number.POSITIVE_INFINITY);
  const socketRef = useRef<{ send: (data: string) => void; readyState: number } | null>(null);
  const docRef = useRef<{ state: RoomState | null; seq: number }>({ state: null, seq: 0 });

  const serverNow = useCallback(() => Date.now() + offsetRef.current, []);
  const send = useCallback((msg: ClientMessage) => {
    const ws = socketRef.current;
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }, []);

  useEffect(() => {
    if (!partyPath || !token) return;
    let stopped = false;
    let errorId = 0;
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let ws: import("partysocket").WebSocket | null = null;
    let pingTimer: ReturnType<typeof setInterval> | null = null;

    const raw = (msg: ClientMessage) => {
      if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
    };
    const ping = () => raw({ action: "ping", clientTime: Date.now() });
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
        if (!Number.isFinite(bestRttRef.current)) offsetRef.current = msg.serverTime - Date.now();
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
        case "pong": {
          const now = Date.now();
          const rtt = now - msg.params.clientTime;
          if (rtt >= 0 && rtt <= bestRttRef.current * 1.5 + 5) {
            bestRttRef.current = Math.min(bestRttRef.current, rtt);
            offsetRef.current = msg.params.serverTime + rtt / 2 - now;
          }
          return;
        }
        case "error":
          setError({ message: msg.params.message, action: msg.params.action, id: ++errorId });
          return;
        case "roomReset": {
          const t = setTimeout(
            () => {
              timers.delete(t);
              join();
            },
            Math.random() * Math.max(0, msg.params.rejoinWithinMs),
          );
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
        case "freePlays":
          setFreePlays({ used: msg.params.used, limit: msg.params.limit });
          return;
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
      const url = () => {
        const u = new URL(partyPath, location.href);
        u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
        u.searchParams.set("token", token);
        if (ticket) u.searchParams.set("ticket", ticket);
        return u.href;
      };
      ws = new ReconnectingWebSocket(url, [], {
        maxRetries: Infinity,
        minReconnectionDelay: 500,
        maxReconnectionDelay: 8000,
      });
      socketRef.current = ws;
      let opened = false;
      ws.addEventListener("open", () => {
        if (stopped) return;
        if (opened) setStatus("reconnecting");
        opened = true;
        join();
        // A few quick pings for a good first estimate, then one every 15 s.
        bestRttRef.current = Number.POSITIVE_INFINITY;
        for (const d of [0, 300, 900]) {
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
        if (!stopped)
          setStatus((s) =>
            s === "kicked" ? s : docRef.current.state ? "reconnecting" : "connecting",
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
  }, [partyPath, token, ticket]);

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
    youAreNext,
    yourVote,
    freePlays,
    serverNow,
    send,
  };
}

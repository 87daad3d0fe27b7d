// The baseline for bench/rooms.bench.mjs: a bare partyserver object (hibernation on) that
// forwards every message to every socket, one frame per message, no state, no auth. Only
// the bench starts it (its own `wrangler dev` on its own port); it is not part of the app.
import { routePartykitRequest, Server, type Connection, type WSMessage } from "partyserver";

export class Bare extends Server {
  static options = { hibernate: true };

  onMessage(_connection: Connection, message: WSMessage) {
    this.broadcast(message);
  }
}

export default {
  async fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    return (
      (await routePartykitRequest(request, env as never)) ??
      new Response("bare-room: /parties/bare/<id>", { status: 404 })
    );
  },
};

/**
 * GET /app/{key} on the HTTP port. The sockets themselves are served by the
 * socket server's own listener (REALTIME_URL, socket_server.ts), which reads
 * and caps every frame; here a plain request learns it must upgrade, and an
 * upgrade learns where to go, so no socket is ever read by Deno.serve's
 * uncapped WebSocket. Both answers carry `socket_url`, the socket server's
 * address, which clients given only the HTTP origin read (clients/realtime.ts).
 */
import type { AppDeps } from "../../domain/deps.ts";
import { jsonResponse } from "./rest_door.ts";

export const SOCKET_TEMPLATE = "/app/{key}";

/** The socket door's answer, or null when `path` is not `/app/{key}`. */
export function socketDoor(
  deps: AppDeps,
  req: Request,
  path: string,
): Response | null {
  const key = /^\/app\/([^/]+)$/.exec(path)?.[1];
  if (key === undefined) return null;
  const socketUrl = deps.config.realtimeUrl;
  if (req.method !== "GET") {
    return jsonResponse(405, {
      message: `The ${req.method} method is not supported for this route.`,
    }, {
      Allow: "GET",
    });
  }
  if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return jsonResponse(426, {
      message: `Connect with a WebSocket (Pusher protocol 7) to ${socketUrl}/app/{key}.`,
      socket_url: socketUrl,
    }, {
      Upgrade: "websocket",
    });
  }
  return jsonResponse(400, {
    message: `Realtime sockets connect to ${socketUrl}/app/{key}.`,
    socket_url: socketUrl,
  });
}

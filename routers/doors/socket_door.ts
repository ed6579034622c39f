/**
 * GET /app/{key}: the WebSocket door of the realtime server (Pusher protocol
 * 7). Anything but a WebSocket upgrade gets a plain JSON answer; the key and
 * protocol are checked on the open socket, with Pusher's error codes.
 */
import type { AppDeps } from "../../domain/deps.ts";
import { jsonResponse } from "./rest_door.ts";

export const SOCKET_TEMPLATE = "/app/{key}";

/** The socket door's answer, or null when `path` is not `/app/{key}`. */
export function socketDoor(
  deps: AppDeps,
  req: Request,
  path: string,
  search: string,
): Response | null {
  const key = /^\/app\/([^/]+)$/.exec(path)?.[1];
  if (key === undefined) return null;
  if (req.method !== "GET") {
    return jsonResponse(405, {
      message: `The ${req.method} method is not supported for this route.`,
    }, {
      Allow: "GET",
    });
  }
  if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return jsonResponse(426, { message: "Connect with a WebSocket (Pusher protocol 7)." }, {
      Upgrade: "websocket",
    });
  }
  const protocol = new URLSearchParams(search).get("protocol");
  let decoded: string;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    decoded = key;
  }
  try {
    return deps.realtime.accept(req, decoded, protocol);
  } catch {
    // Deno refuses a malformed handshake (no Sec-WebSocket-Key, wrong Connection header).
    return jsonResponse(400, { message: "Invalid WebSocket handshake." });
  }
}

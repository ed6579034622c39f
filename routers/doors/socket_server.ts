/**
 * The realtime socket server's own listener (REALTIME_PORT): `GET /app/{key}`
 * upgraded and read by `ws`, which parses every frame itself and so can cap
 * what a client makes us hold. Deno.serve's built-in WebSocket reads a whole
 * message, however many fragments, before our code sees a byte (measured on
 * Deno 2.9: a 256 MiB fragmented message was buffered whole, a 60 MiB frame
 * read whole, an unmasked frame accepted), and offers no raw connection to
 * read frames from, hence a listener of its own (docs/realtime.md).
 *
 * - A message (all its fragments together) over MAX_MESSAGE_BYTES is refused
 *   from its frame header, before its payload is read: close 1009.
 * - A client frame without a mask: close 1002 (RFC 6455 §5.1).
 * - After such a close nothing more is read, and the connection is cut
 *   within a second, so a client that keeps streaming costs nothing more.
 * - One address holds at most REALTIME_MAX_PER_IP sockets across instances:
 *   beyond that, `pusher:error` and close 4101 (reconnect after a back-off).
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer as UntypedServer } from "ws";
import type { AppDeps } from "../../domain/deps.ts";
import { errorFrame, PusherCode } from "../../domain/realtime/pusher_frames.ts";
import { AddressQuota } from "../../domain/realtime/address_quota.ts";
import { clientIp } from "./client_ip.ts";

/** What we use of `ws` (it ships no types; @types/ws would pull in a second @types/node). */
interface WsSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code: number, reason: string): void;
  terminate(): void;
  on(event: "message", fn: (data: Buffer, isBinary: boolean) => void): void;
  on(event: "error", fn: (err: Error & { code?: string }) => void): void;
  on(event: "close", fn: () => void): void;
}
interface WsServer {
  handleUpgrade(
    req: http.IncomingMessage,
    socket: Duplex,
    head: Buffer,
    done: (ws: WsSocket) => void,
  ): void;
}
const WebSocketServer = UntypedServer as unknown as new (options: {
  noServer: true;
  maxPayload: number;
  perMessageDeflate: false;
  clientTracking: false;
}) => WsServer;

/** The largest client message read: Pusher's 10 KB client events fit, with room for encoding. */
export const MAX_MESSAGE_BYTES = 16 * 1024;
/** How long a socket closed for a protocol error may linger before it is cut. */
const CUT_AFTER_MS = 1000;

export interface SocketServer {
  port: number;
  close(): Promise<void>;
}

export function startSocketServer(
  deps: Pick<AppDeps, "realtime" | "kv" | "config" | "log">,
  listen: { port: number; hostname: string },
): Promise<SocketServer> {
  const quota = new AddressQuota(deps.kv, deps.config.realtimeMaxPerIp);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (!appKeyOf(req.url ?? "")) return json(404, { message: "Not found." });
    if (req.method !== "GET") {
      return json(405, { message: `The ${req.method} method is not supported for this route.` }, {
        Allow: "GET",
      });
    }
    json(426, { message: "Connect with a WebSocket (Pusher protocol 7)." }, {
      Upgrade: "websocket",
    });
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://socket");
    const key = appKeyOf(url.pathname);
    if (key === null) return reject(socket, 404, "Not Found");
    const address = addressOf(req, deps.config.trustedProxies);
    // A socket that errors before the upgrade completes must not crash the process.
    socket.on("error", () => socket.destroy());
    quota.take(address).then((granted) => {
      if (socket.destroyed) {
        if (granted) quota.give(address);
        return;
      }
      // The TCP socket's own close, which comes however the socket ends (even when the
      // client left before the upgrade completed and ws never opens it), gives the slot back.
      if (granted) socket.once("close", () => quota.give(address));
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (!granted) {
          const why = "Too many connections from this address";
          ws.send(errorFrame(PusherCode.tooManyConnections, why));
          return ws.close(PusherCode.tooManyConnections, why);
        }
        attach(deps, ws, socket, key, url.searchParams.get("protocol"));
      });
    });
  });
  quota.start();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.hostname, () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            quota.stop();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Hands an open socket to the hub; protocol errors close it with their RFC 6455 code, then cut it. */
function attach(
  deps: Pick<AppDeps, "realtime" | "log">,
  ws: WsSocket,
  tcp: Duplex,
  key: string,
  protocol: string | null,
): void {
  const events = deps.realtime.open(ws, key, protocol);
  ws.on("error", (err: Error & { code?: string }) => {
    // ws has sent the close frame (1009 too big, 1002 protocol error) and would go on reading
    // and discarding whatever the client sends: stop reading at once (the client's writes then
    // stall on TCP), and cut the connection once the close frame has had time to leave.
    deps.log.warn("realtime socket closed: protocol error", { code: err.code ?? err.message });
    setTimeout(() => tcp.pause(), 0);
    setTimeout(() => ws.terminate(), CUT_AFTER_MS);
  });
  if (!events) return;
  ws.on("message", (data: Buffer, isBinary: boolean) => {
    events.message(isBinary ? null : data.toString("utf8"));
  });
  ws.on("close", () => events.closed());
}

/** `{key}` of `/app/{key}`, URL-decoded; null for any other path. */
function appKeyOf(path: string): string | null {
  const raw = /^\/app\/([^/?]+)(?:\?|$)/.exec(path)?.[1];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function addressOf(req: http.IncomingMessage, trusted: string[]): string {
  const remote = (req.socket.remoteAddress ?? "unknown").replace(/^::ffff:/, "");
  const forwarded = req.headers["x-forwarded-for"];
  const value = Array.isArray(forwarded) ? forwarded.join(",") : forwarded ?? null;
  return clientIp(
    { headers: { get: (name) => name === "x-forwarded-for" ? value : null } },
    remote,
    trusted,
  );
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

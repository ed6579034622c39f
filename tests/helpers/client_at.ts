/**
 * A test client whose connections leave from a loopback address of its own
 * (127.0.0.2, 127.0.0.3, ...), so a server or a balancer sees it as a
 * distinct client without any X-Forwarded-For header.
 */
import { WebSocket } from "ws";
import { REALTIME_KEY } from "../realtime/pusher_helpers.ts";

export interface AddressedClient {
  /** Sends a request and returns its status (the body is discarded). */
  request(
    url: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<number>;
  /** Opens a Pusher socket on `port`: `established`, or the close code (-1: a socket error). */
  socket(port: number): Promise<{ ws: WebSocket; outcome: "established" | number }>;
  close(): void;
}

let nextAddress = 0;

/** A loopback address no other caller of this module got (127.1.0.1, 127.1.0.2, ...). */
export function freshLoopbackAddress(): string {
  const n = nextAddress++;
  return `127.1.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

/** A client at `address`. */
export function clientAt(address: string): AddressedClient {
  const client = Deno.createHttpClient({ localAddress: address });
  const request: AddressedClient["request"] = async (url, init = {}) => {
    const res = await fetch(url, {
      client,
      method: init.method ?? "GET",
      headers: {
        accept: "application/json",
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    await res.body?.cancel();
    return res.status;
  };
  const socket: AddressedClient["socket"] = (port) =>
    new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${REALTIME_KEY}?protocol=7`, {
        localAddress: address,
      });
      ws.on("message", (data: Uint8Array) => {
        const frame = JSON.parse(String(data)) as { event: string };
        if (frame.event === "pusher:connection_established") {
          resolve({ ws, outcome: "established" });
        }
      });
      ws.on("close", (code: number) => resolve({ ws, outcome: code }));
      ws.on("error", () => resolve({ ws, outcome: -1 }));
    });
  return { request, socket, close: () => client.close() };
}

/**
 * A local webhook receiver for black-box tests: records every request (time,
 * headers, body) and answers what the test scripted (`respond`), 204 by
 * default. `verify` checks a request with the `standardwebhooks` package, the
 * reference verifier of the specification (not ours).
 */
import { Webhook } from "standardwebhooks";

export interface ReceivedWebhook {
  at: number;
  id: string;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  body: string;
  json: Record<string, unknown>;
}

export type Responder = (req: ReceivedWebhook, n: number) => Response | Promise<Response>;

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** What to answer next; tests may swap it. */
  respond: Responder;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  stop(): Promise<void>;
}

export function startWebhookReceiver(respond?: Responder): WebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    received,
    respond: respond ?? (() => new Response(null, { status: 204 })),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`expected ${count} webhooks, got ${received.length}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    stop: () => server.shutdown(),
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const body = await req.text();
    const headers = Object.fromEntries(req.headers.entries());
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body);
    } catch { /* recorded as sent */ }
    const hit: ReceivedWebhook = {
      at: Date.now(),
      id: headers["webhook-id"] ?? "",
      timestamp: headers["webhook-timestamp"] ?? "",
      signature: headers["webhook-signature"] ?? "",
      headers,
      body,
      json,
    };
    received.push(hit);
    return await receiver.respond(hit, received.length);
  });
  receiver.port = (server.addr as Deno.NetAddr).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** The payload when `secret` verifies the request; throws (the library's error) otherwise. */
export function verifyWebhook(secret: string, hit: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(hit.body, hit.headers);
}

/** A TCP port that counts connections and answers nothing: proof a target was never contacted. */
export function startConnectionCounter(): { port: number; count(): number; stop(): void } {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  let n = 0;
  (async () => {
    for await (const conn of listener) {
      n++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    count: () => n,
    stop: () => listener.close(),
  };
}

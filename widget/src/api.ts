/// <reference lib="dom" />
/**
 * The widget's calls to `/widget/{key}/…`. Every failure becomes an
 * `ApiError` carrying the server's `message`, so the view can show the
 * reason (rate limit, closed conversation) instead of a generic failure.
 */
import { readSse } from "./sse.ts";
import type {
  ConversationState,
  HandoffState,
  HeartbeatReply,
  Product,
  Snapshot,
  Source,
  VisitorDetails,
  WidgetConfig,
} from "./types.ts";

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export interface StreamHandlers {
  onMeta(meta: { conversation_id: string; visitor_message_id: number; status: string }): void;
  onDelta(text: string): void;
  onDone(
    done: { message_id: number | null; source: string; sources: Source[]; note?: string },
  ): void;
  onError(err: { message: string; code: string }): void;
  /** Products the reply recommends (after the last delta, before done). */
  onRecommendations(products: Product[]): void;
}

export interface StreamInput {
  visitor_id: string;
  message: string;
  /** This message's idempotency key: new per message, the same on every retry of it. */
  client_id: string;
  conversation_id?: string;
  identity?: string;
  meta: { page_url: string; page_title: string; visitor?: VisitorDetails };
}

/** Retries of a message the server may not have received (network error, 503). */
const STREAM_RETRIES = 2;

/** A new idempotency key: 32 random hex digits (randomUUID needs a secure page). */
export function newClientId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class WidgetApi {
  private readonly root: string;

  constructor(readonly base: string, key: string) {
    this.root = `${base}/widget/${encodeURIComponent(key)}`;
  }

  async config(): Promise<WidgetConfig> {
    const body = await this.call<{ data: WidgetConfig }>("GET", "/config");
    return body.data;
  }

  snapshot(visitorId: string, conversationId: string): Promise<Snapshot> {
    const q = new URLSearchParams({ visitor_id: visitorId, conversation_id: conversationId });
    return this.call<Snapshot>("GET", `/conversation?${q}`);
  }

  heartbeat(body: Record<string, unknown>): Promise<HeartbeatReply> {
    return this.call<HeartbeatReply>("POST", "/heartbeat", body);
  }

  reset(visitorId: string, conversationId: string): Promise<ConversationState> {
    const body = { visitor_id: visitorId, conversation_id: conversationId };
    return this.call<ConversationState>("POST", "/chat/reset", body);
  }

  /** Asks for a human; `email` leaves an address for the reply when nobody is online. */
  handoff(visitorId: string, conversationId: string, email?: string): Promise<HandoffState> {
    const body = { visitor_id: visitorId, conversation_id: conversationId, email };
    return this.call<HandoffState>("POST", "/handoff", body);
  }

  rate(visitorId: string, conversationId: string, rating: number, comment: string) {
    const body = { visitor_id: visitorId, conversation_id: conversationId, rating, comment };
    return this.call<{ rating: number }>("POST", "/rating", body);
  }

  /** Counts a click on a recommended product (best effort: the tab opens regardless). */
  productClick(visitorId: string, conversationId: string, productId: string): Promise<unknown> {
    const body = { visitor_id: visitorId, conversation_id: conversationId, product_id: productId };
    return this.call("POST", "/recommendations/click", body);
  }

  /** Answers an agent's request to see the page, or stops sharing it. */
  screenShare(visitorId: string, conversationId: string, action: string): Promise<unknown> {
    const body = { visitor_id: visitorId, conversation_id: conversationId, action };
    return this.call("POST", "/screen-share", body);
  }

  /** One batch of the page's recording; the status tells the recorder whether to go on. */
  async screenEvents(visitorId: string, conversationId: string, events: string[]) {
    const res = await fetch(`${this.root}/screen-share/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitor_id: visitorId, conversation_id: conversationId, events }),
    });
    await res.body?.cancel();
    return res.status;
  }

  /** The page is being left: a beacon (plain text, no preflight) that outlives it. */
  screenShareBeacon(visitorId: string, conversationId: string, action: string): void {
    const body = { visitor_id: visitorId, conversation_id: conversationId, action };
    navigator.sendBeacon?.(`${this.root}/screen-share`, JSON.stringify(body));
  }

  /**
   * Posts a message and dispatches the reply's events until the stream ends.
   * A lost connection or a 503 before the stream starts is retried with the
   * same `client_id`, so a message the server stored anyway is not stored
   * twice: the retry streams its stored reply (docs/errors.md).
   */
  async stream(input: StreamInput, on: StreamHandlers, signal: AbortSignal): Promise<void> {
    const res = await this.postStream(input, signal);
    if (!res.ok || !res.body || !res.headers.get("content-type")?.includes("event-stream")) {
      throw await failure(res);
    }
    let finished = false;
    await readSse(res.body, ({ event, data }) => {
      const payload = JSON.parse(data);
      if (event === "meta") on.onMeta(payload);
      else if (event === "delta") on.onDelta(String(payload.delta ?? ""));
      else if (event === "recommendations") on.onRecommendations(payload.products ?? []);
      else if (event === "done") {
        finished = true;
        on.onDone(payload);
      } else if (event === "error") {
        finished = true;
        on.onError(payload);
      }
    });
    if (!finished) on.onError({ message: "The reply was interrupted.", code: "internal" });
  }

  private async postStream(input: StreamInput, signal: AbortSignal): Promise<Response> {
    for (let attempt = 0;; attempt++) {
      let res: Response | null = null;
      try {
        res = await fetch(`${this.root}/stream`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify(input),
          signal,
        });
      } catch (err) {
        if (signal.aborted || attempt >= STREAM_RETRIES) throw err;
      }
      if (res && (res.status !== 503 || attempt >= STREAM_RETRIES)) return res;
      const wait = Number(res?.headers.get("retry-after")) || 2 ** attempt;
      await res?.body?.cancel();
      await new Promise((r) => setTimeout(r, Math.min(wait, 5) * 1000));
      signal.throwIfAborted();
    }
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.root + path, {
      method,
      headers: body === undefined
        ? { accept: "application/json" }
        : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await failure(res);
    return await res.json() as T;
  }
}

async function failure(res: Response): Promise<ApiError> {
  let message = "Something went wrong. Please try again.";
  try {
    const body = await res.json();
    if (typeof body?.message === "string") message = body.message;
  } catch { /* keep the generic message */ }
  if (res.status === 429) {
    const wait = res.headers.get("retry-after");
    message = wait ? `You're sending messages too fast. Try again in ${wait} s.` : message;
  }
  return new ApiError(res.status, message);
}

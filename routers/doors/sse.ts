/**
 * Server-Sent Events door: framing (`event: x\ndata: {json}\n\n`), a comment
 * every 15 s so proxies keep a long stream open, and disconnect detection
 * through the stream's `cancel()`, which aborts the producer's signal (Deno
 * warns when `request.signal` is used after a successful response).
 */

const encoder = new TextEncoder();

/** Interval of the keep-alive comment on long streams. */
export const KEEP_ALIVE_MS = 15_000;

/** One SSE event. JSON never contains a raw newline, so one `data:` line suffices. */
export function sseFrame(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface SseWriter {
  /** Send one event; false when the client has gone (the event is dropped). */
  send(event: string, data: unknown): boolean;
  readonly closed: boolean;
}

export interface SseOptions {
  headers?: Headers;
  keepAliveMs?: number;
  /** Called with an error the producer threw (after the stream is closed). */
  onError?: (err: unknown) => void;
}

/**
 * A `200 text/event-stream` response fed by `produce`. The stream closes when
 * `produce` settles; `signal` aborts when the client disconnects.
 */
export function sseResponse(
  produce: (writer: SseWriter, signal: AbortSignal) => Promise<void>,
  opts: SseOptions = {},
): Response {
  const abort = new AbortController();
  let closed = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    closed = true;
    if (timer !== undefined) clearInterval(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const writer: SseWriter = {
        send(event, data) {
          if (closed) return false;
          try {
            controller.enqueue(sseFrame(event, data));
            return true;
          } catch {
            stop();
            return false;
          }
        },
        get closed() {
          return closed;
        },
      };
      timer = setInterval(() => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          stop();
        }
      }, opts.keepAliveMs ?? KEEP_ALIVE_MS);
      produce(writer, abort.signal)
        .catch((err) => opts.onError?.(err))
        .finally(() => {
          if (closed) return;
          stop();
          try {
            controller.close();
          } catch { /* already closed by a cancel */ }
        });
    },
    cancel() {
      stop();
      abort.abort();
    },
  });
  const headers = new Headers(opts.headers);
  headers.set("content-type", "text/event-stream; charset=utf-8");
  headers.set("cache-control", "no-cache, no-transform");
  headers.set("x-accel-buffering", "no");
  return new Response(body, { status: 200, headers });
}

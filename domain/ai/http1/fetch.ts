/**
 * A `fetch` for HTTP/1.1 provider calls on Deno.connect / Deno.startTls: one
 * request per connection at a time, kept-alive connections reused (pool.ts),
 * bodies read through a small buffer (connection.ts, body_decoder.ts).
 *
 * What a caller of fetch relies on is kept: the caller's abort rejects the
 * pending answer or errors its body at once and closes the connection (the
 * server sees the close); a connection failure rejects with a TypeError whose
 * `cause` is the socket's error; a body cut short errors instead of ending;
 * redirects are answered as they are, not followed. A request is never sent
 * twice: a kept-alive connection seen closed before the request is written is
 * not used (pool.ts), and once a byte of a request is written a failure is
 * the caller's to see.
 *
 * Kept over undici (issue 43, measured beside it: PROVIDER_HTTP=undici,
 * ../undici_fetch.ts): what would let us drop this client is drafted as an
 * upstream issue in docs/providers.md, "Why our own client, and what would
 * let us drop it".
 */
import { type Http1Connection } from "./connection.ts";
import { BodyDecoder } from "./body_decoder.ts";
import { readResponseHead } from "./response_head.ts";
import { connect, originOf, putIdle, takeIdle } from "./pool.ts";

/** Hop-by-hop fields this client sets itself (a caller's would contradict the framing). */
const OWN_FIELDS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
]);
/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([204, 205, 304]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The request was aborted.", "AbortError");
}

/** A failure as the runtime's fetch reports one: a TypeError whose cause is the real error. */
function networkError(url: URL, err: unknown): TypeError {
  const message = err instanceof Error ? err.message : String(err);
  return new TypeError(`error sending request for url (${url.origin}): ${message}`, {
    cause: err,
  });
}

function bodyError(err: unknown): TypeError {
  const message = err instanceof Error ? err.message : String(err);
  return new TypeError(`error reading a body from connection: ${message}`, { cause: err });
}

/** A string as bytes, one per character (header fields are ByteStrings). */
function latin1Bytes(s: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  return at + s.length;
}

/** Request line, fields and body in one array: one write, one packet for a small request. */
function requestBytes(
  url: URL,
  method: string,
  headers: Headers,
  body: Uint8Array | null,
): Uint8Array {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  headers.forEach((value, name) => {
    if (!OWN_FIELDS.has(name)) head += `${name}: ${value}\r\n`;
  });
  if (body || !["GET", "HEAD", "DELETE", "OPTIONS"].includes(method)) {
    head += `content-length: ${body?.byteLength ?? 0}\r\n`;
  }
  head += "\r\n";
  const out = new Uint8Array(head.length + (body?.byteLength ?? 0));
  const at = latin1Bytes(head, out, 0);
  if (body) out.set(body, at);
  return out;
}

/** The request body as bytes (the SDK sends JSON strings; anything else is read once). */
function requestBody(
  body: BodyInit | null | undefined,
  headers: Headers,
): Uint8Array | null | Promise<Uint8Array> {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  const wrapped = new Response(body);
  const type = wrapped.headers.get("content-type");
  if (type && !headers.has("content-type")) headers.set("content-type", type);
  return wrapped.arrayBuffer().then((b) => new Uint8Array(b));
}

export function http1Fetch(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  let url: URL;
  try {
    url = new URL(input instanceof Request ? input.url : input);
  } catch (err) {
    return Promise.reject(new TypeError(`Invalid URL: ${String(input)}`, { cause: err }));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new TypeError(`Unsupported URL scheme: ${url.protocol}`));
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  const body = requestBody(init.body, headers);
  if (body instanceof Promise) {
    return body.then((bytes) =>
      exchange(url, method, requestBytes(url, method, headers, bytes), signal)
    );
  }
  return exchange(url, method, requestBytes(url, method, headers, body), signal);
}

/** One request and its response on one connection. */
function exchange(
  url: URL,
  method: string,
  request: Uint8Array | null,
  signal: AbortSignal | undefined,
): Promise<Response> {
  if (signal?.aborted) return Promise.reject(abortReason(signal)); // while the body was read
  const origin = originOf(url);
  return new Promise<Response>((resolve, reject) => {
    let c: Http1Connection | null = null;
    let answered = false;
    let ended = false;
    let body: ReadableStreamDefaultController<Uint8Array> | null = null;
    /** What the response head allowed: the connection's reuse, and for how long. */
    let keepAlive = false;
    let keepAliveMs: number | null = null;
    /**
     * The exchange is over: the connection goes back to the pool when the response
     * was read to its end (`complete`) and allowed it, and is closed otherwise.
     */
    const end = (complete: boolean) => {
      if (ended) return;
      ended = true;
      signal?.removeEventListener("abort", onAbort);
      if (!c) return;
      if (complete && keepAlive && !signal?.aborted) putIdle(origin, c, keepAliveMs);
      else c.close();
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      if (!answered) reject(reason);
      answered = true;
      try {
        body?.error(reason);
      } catch { /* already closed */ }
      end(false); // closes the socket: the provider sees the request go away
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const run = async () => {
      c = takeIdle(origin);
      if (!c) {
        const fresh = await connect(origin, signal);
        if (ended) return fresh.close(); // aborted during the TLS handshake
        c = fresh;
      }
      // The read for the answer is in flight before the request is written (on a kept-alive
      // connection it already is: the idle watch's): the answer is taken as soon as it
      // arrives, not one turn of a busy event loop after the write's own completion.
      const heading = readResponseHead(c, method);
      heading.catch(() => {}); // a failed write closes the connection and is the error seen
      // Not kept once written: a stream's closures outlive this function, and would keep
      // the prompt's bytes for as long as the reply streams.
      const bytes = request!;
      request = null;
      await c.write(bytes);
      const head = await heading;
      if (head === null) throw new Error("connection closed before the response");
      keepAlive = head.keepAlive;
      keepAliveMs = head.keepAliveMs;
      const decoder = new BodyDecoder(c, head.framing);
      const conn = c;
      const nullBody = NULL_BODY.has(head.status) || method === "HEAD" || decoder.done;
      const stream = nullBody ? null : new ReadableStream<Uint8Array>({
        start(controller) {
          body = controller;
        },
        async pull(controller) {
          try {
            const bytes = await decoder.next();
            if (bytes) controller.enqueue(bytes);
            // The end is known as soon as its bytes are here: close without waiting for a read.
            if (decoder.done) {
              controller.close();
              end(conn.buffered === 0); // bytes past the body: not HTTP we trust
            }
          } catch (err) {
            if (ended) return; // the abort already errored it, with its own reason
            try {
              controller.error(bodyError(err));
            } catch { /* already errored */ }
            end(false);
          }
        },
        cancel() {
          end(false);
        },
      }, { highWaterMark: 0 });
      let response: Response;
      try {
        response = new Response(stream, {
          status: head.status,
          statusText: head.statusText,
          headers: head.headers,
        });
      } catch (err) {
        throw new Error(`unusable response (status ${head.status})`, { cause: err });
      }
      if (!stream) end(decoder.done); // a 205 with a body: not worth reading
      answered = true;
      resolve(response);
    };
    run().catch((err) => {
      if (answered || ended) {
        c?.close();
        return; // the abort already answered, with its reason
      }
      answered = true;
      reject(networkError(url, err));
      end(false);
    });
  });
}

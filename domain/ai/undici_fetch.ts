/**
 * The provider `fetch` on undici (issue 43), chosen with PROVIDER_HTTP=undici
 * so it can be measured beside our own client (./http1/) from one tree. It
 * calls undici's `request` on one shared Agent (keep-alive per origin, no
 * pipelining) with a 4 KiB `highWaterMark` on each body, and hands the body
 * to the SDK as a web stream pulled one read at a time, so a waiting stream
 * holds no more than our own client's buffer on the JavaScript side.
 *
 * What the SDK needs of a fetch is kept as in ./http1/fetch.ts: the caller's
 * abort ends the request and its body (undici destroys the socket), a
 * connection failure rejects with a TypeError whose `cause` is undici's error
 * (call_provider.ts names it from the text), redirects are answered as they
 * are (undici's `request` follows none), and no request is sent twice (undici
 * retries nothing without its retry interceptor). A proxy named by the
 * environment is honoured through undici's EnvHttpProxyAgent (CONNECT for
 * https targets). undici's `fetch` is not used: it builds a second Response
 * class and a WHATWG stream over a node stream per body.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent } from "undici";

/** As ./http1/pool.ts: our side closes idle connections before common servers' 5 s. */
const IDLE_MS = 4_000;
/** Bytes a body's node stream buffers before it stops reading the socket. */
const BODY_HIGH_WATER_MARK = 4 * 1024;
const NULL_BODY = new Set([204, 205, 304]);

let shared: Dispatcher | null = null;

function proxyConfigured(): boolean {
  try {
    return ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]
      .some((name) => Boolean(Deno.env.get(name)));
  } catch {
    return false;
  }
}

function dispatcher(): Dispatcher {
  if (shared) return shared;
  const options = {
    keepAliveTimeout: IDLE_MS,
    keepAliveMaxTimeout: IDLE_MS,
    pipelining: 1,
    // No cap on connections per origin (undici's `connections`): a cap queues the
    // streams past it behind the ones waiting for tokens, as ours never does.
    connections: null,
  };
  shared = proxyConfigured() ? new EnvHttpProxyAgent(options) : new Agent(options);
  return shared;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The request was aborted.", "AbortError");
}

function networkError(url: URL, err: unknown): TypeError {
  const message = err instanceof Error ? err.message : String(err);
  return new TypeError(`error sending request for url (${url.origin}): ${message}`, {
    cause: err,
  });
}

type Headers2 = Record<string, string | string[] | undefined>;

function responseHeaders(raw: Headers2): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) { for (const v of value) out.append(name, v); }
    else out.append(name, value);
  }
  return out;
}

/** The request's body as undici takes it (the SDK sends JSON strings). */
async function requestBody(
  body: BodyInit | null | undefined,
  headers: Headers,
): Promise<string | Uint8Array | null> {
  if (body === undefined || body === null) return null;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  const wrapped = new Response(body);
  const type = wrapped.headers.get("content-type");
  if (type && !headers.has("content-type")) headers.set("content-type", type);
  return new Uint8Array(await wrapped.arrayBuffer());
}

export async function undiciFetch(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const method = (init.method ?? "GET").toUpperCase() as Dispatcher.HttpMethod;
  const headers = new Headers(init.headers);
  const body = await requestBody(init.body, headers);
  const fields: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name !== "host" && name !== "connection" && name !== "content-length") fields[name] = value;
  });
  let answer: Dispatcher.ResponseData;
  try {
    answer = await dispatcher().request({
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers: fields,
      body,
      signal,
      highWaterMark: BODY_HIGH_WATER_MARK,
    });
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    throw networkError(url, err);
  }
  const nodeBody = answer.body;
  nodeBody.on("error", () => {}); // seen by the reader below; an abort must not go uncaught
  const nullBody = NULL_BODY.has(answer.statusCode) || method === "HEAD";
  if (nullBody) nodeBody.dump().catch(() => {});
  const iterator = nullBody ? null : nodeBody[Symbol.asyncIterator]();
  const stream = iterator
    ? new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value as Uint8Array);
        } catch (err) {
          controller.error(
            signal?.aborted ? abortReason(signal) : new TypeError(
              `error reading a body from connection: ${(err as Error).message}`,
              { cause: err },
            ),
          );
        }
      },
      cancel() {
        nodeBody.destroy();
      },
    }, { highWaterMark: 0 })
    : null;
  return new Response(stream, {
    status: answer.statusCode,
    headers: responseHeaders(answer.headers as Headers2),
  });
}

/**
 * The `fetch` the AI SDK uses for provider calls, built on node:http and
 * node:https. The runtime's own fetch reads a response body into a fresh
 * 64 KiB buffer for every read: a streamed reply held one such buffer for as
 * long as it waited for the next token, and left one behind as garbage for
 * every fragment it received (docs/BENCHMARKS.md, issue 25: most of the
 * memory of a concurrent widget stream). Node's response hands over each
 * chunk at the size it arrived, so a stream costs what its tokens weigh.
 *
 * What the SDK needs of a fetch is kept: the caller's abort ends the request
 * and its body at once (the provider sees the connection close), connection
 * failures reject with the runtime's error as `cause` (call_provider.ts names
 * them), TLS certificates are verified, and connections are kept alive and
 * reused. Redirects are not followed: provider APIs answer in place, and a
 * 3xx reaches the SDK as the refused request it is. When the environment
 * names a proxy (HTTP_PROXY, HTTPS_PROXY), the runtime's fetch, which honours
 * it, is used instead (`providerFetch()` decides).
 */
import http from "node:http";
import https from "node:https";

/** Kept-alive connections per provider host, shared by every stream. */
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The provider call was aborted.", "AbortError");
}

/** The request body as bytes (the SDK sends JSON strings; anything else is read once). */
async function bodyBytes(init: RequestInit, headers: Headers): Promise<Uint8Array | null> {
  const body = init.body;
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  const wrapped = new Response(body);
  const type = wrapped.headers.get("content-type");
  if (type && !headers.has("content-type")) headers.set("content-type", type);
  return new Uint8Array(await wrapped.arrayBuffer());
}

function responseHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * Close a request at once. Deno's node:http resends a request destroyed before
 * its answer when it went out on a reused keep-alive connection, taking the
 * close for a stale connection (denoland/deno#36786, open in 2.9.6): an
 * aborted provider call would run twice. It resends only what it believes
 * went out on a reused socket, so the request is told it did not.
 */
function endRequest(request: http.ClientRequest): void {
  request.reusedSocket = false;
  request.destroy();
}

/** A fetch failure as the runtime reports one: a TypeError whose cause is the socket's error. */
function networkError(err: Error): TypeError {
  return new TypeError(`error sending request: ${err.message}`, { cause: err });
}

export function nodeFetch(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`Unsupported URL scheme: ${url.protocol}`));
  const headers = new Headers(init.headers);
  return bodyBytes(init, headers).then((body) =>
    new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal)); // while the body was read
      if (body) headers.set("content-length", String(body.byteLength));
      const outgoing: Record<string, string> = {};
      headers.forEach((value, name) => outgoing[name] = value);
      const request = (url.protocol === "https:" ? https : http).request(url, {
        method: init.method ?? "GET",
        headers: outgoing,
        agent,
      });
      let bodyController: ReadableStreamDefaultController<Uint8Array> | null = null;
      let settled = false;
      const onAbort = () => {
        const reason = abortError(signal!);
        if (!settled) reject(reason);
        settled = true;
        try {
          bodyController?.error(reason);
        } catch { /* already closed */ }
        endRequest(request);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      request.on("error", (err) => {
        done();
        if (signal?.aborted) return; // the abort already ended it, with its own reason
        if (!settled) reject(networkError(err));
        try {
          bodyController?.error(networkError(err));
        } catch { /* already closed */ }
      });
      request.on("response", (res) => {
        settled = true;
        const status = res.statusCode ?? 502;
        const noBody = NULL_BODY.has(status) || init.method === "HEAD";
        const stream = noBody ? null : new ReadableStream<Uint8Array>({
          start(controller) {
            bodyController = controller;
            res.on("data", (chunk: Uint8Array) => {
              controller.enqueue(chunk);
              // Backpressure: a chunk nobody has asked for yet pauses the socket.
              if ((controller.desiredSize ?? 0) < 0) res.pause();
            });
            let ended = false;
            res.on("end", () => {
              ended = true;
              done();
              try {
                controller.close();
              } catch { /* errored by an abort */ }
            });
            res.on("error", (err) => {
              done();
              try {
                controller.error(networkError(err));
              } catch { /* already errored */ }
            });
            // A connection that closes before the body's end must not pass for a short reply.
            res.on("close", () => {
              if (ended || res.complete) return;
              done();
              try {
                controller.error(
                  networkError(new Error("connection closed before the body ended")),
                );
              } catch { /* already closed or errored */ }
            });
          },
          pull() {
            res.resume();
          },
          cancel() {
            done();
            endRequest(request);
          },
        }, { highWaterMark: 0 });
        if (noBody) {
          res.resume();
          done();
        }
        resolve(
          new Response(stream, {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders(res.headers),
          }),
        );
      });
      request.end(body ?? undefined);
    })
  );
}

function proxyConfigured(): boolean {
  try {
    return ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]
      .some((name) => Boolean(Deno.env.get(name)));
  } catch {
    return false; // no env permission: no proxy either
  }
}

/** The fetch for provider clients: node's, unless a proxy is configured. */
export function providerFetch(): typeof fetch {
  return proxyConfigured() ? globalThis.fetch : nodeFetch as typeof fetch;
}

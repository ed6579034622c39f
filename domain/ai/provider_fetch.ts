/**
 * The `fetch` the AI SDK uses for provider calls: our own HTTP/1.1 client on
 * Deno.connect / Deno.startTls (./http1/). The runtime's fetch reads a
 * response body into a fresh 64 KiB buffer for every read: a streamed reply
 * held one such buffer for as long as it waited for the next token, and left
 * one behind as garbage for every fragment it received (docs/BENCHMARKS.md,
 * issue 25). node:http, used before, fixed the memory but put a JavaScript
 * HTTP parser and two layers of node streams between the socket and the
 * first token (about half a millisecond per call). This client reads into a
 * 4 KiB buffer per connection, hands a body over as it arrives, and has
 * nothing else between the socket and the SDK.
 *
 * What the SDK needs of a fetch is kept (http1/fetch.ts says how): the
 * caller's abort ends the request and its body at once (the provider sees the
 * connection close), connection failures reject with a TypeError whose
 * `cause` is the socket's error (call_provider.ts names them), TLS
 * certificates are verified by the runtime, connections are kept alive and
 * reused, and no request is sent twice. Redirects are not followed: provider
 * APIs answer in place, and a 3xx reaches the SDK as the refused request it
 * is. When the environment names a proxy (HTTP_PROXY, HTTPS_PROXY,
 * ALL_PROXY), the runtime's fetch, which honours it, is used instead. With
 * tracing on, each request gets the client span the runtime's fetch would
 * have given it (observability/tracing.ts `clientSpan`).
 */
import { http1Fetch } from "./http1/fetch.ts";
import { clientSpan, tracingOn } from "../observability/tracing.ts";

function proxyConfigured(): boolean {
  try {
    return ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]
      .some((name) => Boolean(Deno.env.get(name)));
  } catch {
    return false; // no env permission: no proxy either
  }
}

/** Our fetch inside a client span, with the trace context sent along. */
async function tracedFetch(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const span = clientSpan((init.method ?? "GET").toUpperCase(), url);
  if (!span) return await http1Fetch(input, init);
  const headers = new Headers(init.headers);
  headers.set("traceparent", span.traceparent);
  try {
    const response = await http1Fetch(input, { ...init, headers });
    span.end(response.status); // at the response head, as the runtime's fetch ends its span
    return response;
  } catch (err) {
    span.end(null, err);
    throw err;
  }
}

/** The fetch for provider clients: ours, unless a proxy is configured. */
export function providerFetch(): typeof fetch {
  if (proxyConfigured()) return globalThis.fetch;
  return (tracingOn ? tracedFetch : http1Fetch) as typeof fetch;
}

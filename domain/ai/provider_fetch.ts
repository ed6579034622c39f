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
 * reused, and no request is sent twice. A 307 or 308 is followed above the
 * transport, by the rules of provider_redirects.ts; any other 3xx reaches the
 * SDK as the refused request it is. When the environment names a proxy
 * (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), the runtime's fetch, which honours it
 * (a CONNECT tunnel for https), is used instead. With
 * tracing on, each request gets the client span the runtime's fetch would
 * have given it (observability/tracing.ts `clientSpan`).
 *
 * PROVIDER_HTTP=undici selects undici instead (undici_fetch.ts, issue 43),
 * proxies included, so both stacks can be measured from one tree; the default
 * stays ours (docs/providers.md says why).
 */
import { http1Fetch } from "./http1/fetch.ts";
import { undiciFetch } from "./undici_fetch.ts";
import { followingRedirects } from "./provider_redirects.ts";
import { clientSpan, tracingOn } from "../observability/tracing.ts";

function proxyConfigured(): boolean {
  try {
    return ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]
      .some((name) => Boolean(Deno.env.get(name)));
  } catch {
    return false; // no env permission: no proxy either
  }
}

/** The provider HTTP stack named by PROVIDER_HTTP: `ours` (default) or `undici`. */
export function providerHttp(): "ours" | "undici" {
  try {
    return Deno.env.get("PROVIDER_HTTP") === "undici" ? "undici" : "ours";
  } catch {
    return "ours";
  }
}

/** A fetch inside a client span, with the trace context sent along. */
async function tracedFetch(
  inner: typeof http1Fetch,
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const span = clientSpan((init.method ?? "GET").toUpperCase(), url);
  if (!span) return await inner(input, init);
  const headers = new Headers(init.headers);
  headers.set("traceparent", span.traceparent);
  try {
    const response = await inner(input, { ...init, headers });
    span.end(response.status); // at the response head, as the runtime's fetch ends its span
    return response;
  } catch (err) {
    span.end(null, err);
    throw err;
  }
}

/** The fetch for provider clients: ours (the runtime's when a proxy is set), or undici's. */
export function providerFetch(): typeof fetch {
  return followingRedirects(transport());
}

function transport(): typeof fetch {
  const undici = providerHttp() === "undici";
  if (!undici && proxyConfigured()) return globalThis.fetch;
  const inner = undici ? undiciFetch : http1Fetch;
  if (!tracingOn) return inner as typeof fetch;
  return ((input: string | URL | Request, init?: RequestInit) =>
    tracedFetch(inner, input, init)) as typeof fetch;
}

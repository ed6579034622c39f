/**
 * OpenTelemetry spans through Deno's built-in OpenTelemetry support
 * (docs/operations.md): started with `OTEL_DENO=true`, Deno exports over
 * OTLP to OTEL_EXPORTER_OTLP_ENDPOINT, opens a span for every request
 * `Deno.serve` answers and every `fetch` (the provider's HTTP call), and
 * backs the `@opentelemetry/api` tracer used here. Our spans name the work in
 * between: the turn, retrieval, the provider call, event publishing.
 *
 * Off by default. The switch is read once at start: when it is off, `inSpan`
 * calls its function straight away (no span object, no context), so tracing
 * costs nothing.
 */
import {
  type Attributes,
  context as contextApi,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { redactRuntimeSpans, routeSpan, setExactAttribute } from "./span_redaction.ts";

function readSwitch(): boolean {
  try {
    return /^(true|1)$/i.test(Deno.env.get("OTEL_DENO") ?? "");
  } catch {
    return false; // no env permission: no tracing
  }
}

export const tracingOn = readSwitch();

const tracer = trace.getTracer("parley");
// Before the first request: the runtime's spans record whole URLs (span_redaction.ts).
if (tracingOn) redactRuntimeSpans(tracer);

function failed(span: Span, err: unknown): void {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message.slice(0, 200) : String(err),
  });
  if (err instanceof Error) span.setAttribute("error.type", err.name);
}

/** Run `fn` in a span named `name` (a child of the current one); ends when `fn` settles. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracingOn) return fn(null);
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A span opened now and ended later by the caller (work that outlives the
 * function that starts it, like a widget turn stored in one step and answered
 * in the next). `run` makes it the parent of spans started inside.
 */
export interface OpenSpan {
  run<T>(fn: () => T): T;
  end(err?: unknown): void;
}

const NO_SPAN: OpenSpan = { run: (fn) => fn(), end() {} };

export function openSpan(name: string, attributes: Attributes): OpenSpan {
  if (!tracingOn) return NO_SPAN;
  const span = tracer.startSpan(name, { attributes });
  const ctx = trace.setSpan(contextApi.active(), span);
  let ended = false;
  return {
    run: (fn) => contextApi.with(ctx, fn),
    end(err) {
      if (ended) return;
      ended = true;
      if (err !== undefined) failed(span, err);
      span.end();
    },
  };
}

/**
 * Run `fn` outside the current trace: work a request sets off but does not
 * wait for (event subscribers, the job runner it wakes) would otherwise
 * carry the request's trace for as long as it runs. Redis pub/sub detaches
 * them naturally; the in-process Kv and event bus call this (tracing on only).
 */
export function detached(fn: () => void): void {
  contextApi.with(ROOT_CONTEXT, fn);
}

/** Mark a moment on the current span (the first delta of a reply). */
export function spanEvent(name: string): void {
  if (tracingOn) trace.getActiveSpan()?.addEvent(name);
}

/**
 * The request's span (the runtime's server span of `Deno.serve` or
 * `node:http`): named by its route template once routed (Deno names it by
 * method only), with the template as `http.route` and `url.path`, never the
 * requested path (span_redaction.ts). `route` must be a template or a fixed
 * placeholder. Returns its trace id for the request's log line.
 */
export function nameRequestSpan(method: string, route: string): string | undefined {
  if (!tracingOn) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  routeSpan(span, method, route);
  return span.spanContext().traceId;
}

/**
 * An outgoing HTTP request's span, as the runtime's fetch opens one (a child
 * of the current span, kind client, the same attribute names), for requests
 * that do not go through that fetch (the provider client, ai/http1/). Its
 * `traceparent` (W3C Trace Context) goes out with the request, so a gateway
 * that traces continues the same trace. Null when tracing is off.
 */
export interface ClientSpan {
  traceparent: string;
  end(status: number | null, err?: unknown): void;
}

export function clientSpan(method: string, url: URL): ClientSpan | null {
  if (!tracingOn) return null;
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": method,
      "server.address": url.hostname,
      "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    },
  });
  // The provider's API path (ours to choose), no query: it may carry a key.
  setExactAttribute(span, "url.full", `${url.origin}${url.pathname}`);
  const { traceId, spanId, traceFlags } = span.spanContext();
  return {
    traceparent: `00-${traceId}-${spanId}-0${traceFlags & 1}`,
    end(status, err) {
      if (status !== null) span.setAttribute("http.response.status_code", status);
      if (err !== undefined) failed(span, err);
      else if (status !== null && status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

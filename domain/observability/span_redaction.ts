/**
 * What the runtime's own spans may carry (docs/operations.md, "What traces
 * never carry"). Deno's instrumentation of `Deno.serve`, `node:http` and
 * `fetch` records every request's URL whole: `url.full` and `url.query` with
 * the query string (a widget's `visitor_id`), `url.path` with the path (bot
 * keys, conversation UUIDs, a visitor id). Deno 2.9 has no option to leave
 * them out, and setting an attribute again does not replace it: the exporter
 * sends both values (measured). So the setters themselves are wrapped, once,
 * on the prototype of the runtime's span class (every span the runtime and
 * `@opentelemetry/api` make here is one), before the first request:
 *
 * - `url.query` and `url.path` are dropped. A server span gets `url.path`
 *   from `routeSpan`: its route template (`/widget/{key}/stream`).
 * - `url.full` keeps the URL's origin only (scheme, host, port). A routed
 *   server span's is its origin and route template; any other span's (the
 *   runtime's fetch: webhooks, crawls, pushes) is written as the origin alone
 *   when the span ends.
 *
 * The runtime sets these through the span's own methods (Deno's
 * ext/telemetry/util.ts, `updateSpanFromRequest`);
 * tests/observability/trace_redaction_test.ts fails if a runtime stops doing so.
 */
import type { Attributes, AttributeValue, Span, TimeInput, Tracer } from "@opentelemetry/api";

type SetAttribute = (this: Span, key: string, value: AttributeValue) => Span;

const DROPPED = new Set(["url.query", "url.path"]);

/** The runtime's own setter, for the values we write ourselves (templates, our client spans). */
let exactSetAttribute: SetAttribute | null = null;
/** Origins of `url.full` values held back until the span is routed or ends. */
const origins = new WeakMap<Span, string>();

/** `scheme://host:port` of a URL: no credentials, path, query or fragment. */
function originOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(url)";
  }
}

function withoutUrls(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!DROPPED.has(key) && key !== "url.full") out[key] = value;
  }
  return out;
}

/** Wrap the setters of the runtime's span class (once; tracing on only). */
export function redactRuntimeSpans(tracer: Tracer): void {
  if (exactSetAttribute) return;
  // Any span gives the class. This one is never ended, so it is never exported.
  const proto = Object.getPrototypeOf(tracer.startSpan("parley.probe", { root: true })) as Span;
  const setAttribute = proto.setAttribute as SetAttribute;
  const { setAttributes, end } = proto;
  exactSetAttribute = setAttribute;

  proto.setAttribute = function (this: Span, key: string, value: AttributeValue) {
    if (DROPPED.has(key)) return this;
    if (key === "url.full") {
      if (typeof value === "string") origins.set(this, originOf(value));
      return this;
    }
    return setAttribute.call(this, key, value);
  };
  proto.setAttributes = function (this: Span, attributes: Attributes) {
    const full = attributes["url.full"];
    if (typeof full === "string") origins.set(this, originOf(full));
    return setAttributes.call(this, withoutUrls(attributes));
  };
  proto.end = function (this: Span, endTime?: TimeInput) {
    const origin = origins.get(this);
    if (origin !== undefined) {
      origins.delete(this);
      setAttribute.call(this, "url.full", origin);
    }
    return end.call(this, endTime);
  };
}

/** Set an attribute as given, past the redaction (values we built from templates). */
export function setExactAttribute(span: Span, key: string, value: AttributeValue): void {
  (exactSetAttribute ?? span.setAttribute).call(span, key, value);
}

/**
 * A server span named by its route template: `METHOD template`, with
 * `http.route`, and for a path template (`/api/v1/conversations/{conversation}`,
 * not a placeholder like `(unmatched)`) `url.path` and `url.full` (origin and template).
 */
export function routeSpan(span: Span, method: string, route: string): void {
  span.updateName(`${method} ${route}`);
  setExactAttribute(span, "http.route", route);
  if (!route.startsWith("/")) return;
  setExactAttribute(span, "url.path", route);
  const origin = origins.get(span);
  if (origin === undefined) return;
  origins.delete(span);
  setExactAttribute(span, "url.full", `${origin}${route}`);
}

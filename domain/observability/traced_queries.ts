/**
 * SQL statements as spans of the trace that runs them (tracing on only).
 * postgres.js has no hook around a statement, so its query class's one
 * entry point (`handle`, called once by `await`, `.execute()` or
 * `.forEach()`) is wrapped, as OpenTelemetry's instrumentations of other
 * drivers do: every statement, in a transaction or not, gets a `db …` span
 * under the span that awaited it, ended when its result or error arrives.
 * Statements outside any trace (the workers' polling, migrations) get none.
 * The span holds the statement's text with `$n` placeholders: never its values.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { tracingOn } from "./tracing.ts";
import type { Sql } from "../../db/client.ts";

interface QueryLike extends Promise<unknown> {
  executed: boolean;
  strings: TemplateStringsArray | string;
  handle(): Promise<void>;
}

const PATCHED = Symbol("parley.tracedQueries");
const MAX_TEXT = 1000;

function statementText(strings: TemplateStringsArray | string): string {
  const text = typeof strings === "string"
    ? strings
    : strings.reduce((out, part, i) => `${out}$${i}${part}`);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT)}…` : flat;
}

export function traceQueries(sql: Sql): void {
  if (!tracingOn) return;
  // A query object is lazy: built here for its class, never sent.
  const proto = Object.getPrototypeOf(sql`SELECT 1`) as QueryLike & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const tracer = trace.getTracer("parley");
  const handle = proto.handle;
  proto.handle = function (this: QueryLike) {
    if (!this.executed && trace.getActiveSpan()) {
      const text = statementText(this.strings);
      const verb = /^[A-Za-z]+/.exec(text)?.[0]?.toUpperCase() ?? "query";
      const span = tracer.startSpan(`db ${verb}`, {
        kind: SpanKind.CLIENT,
        attributes: { "db.system": "postgresql", "db.query.text": text },
      });
      // The class's species is Promise: this `then` neither re-enters handle nor builds a query.
      Promise.prototype.then.call(this, () => span.end(), (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(err).slice(0, 200) });
        span.end();
      });
    }
    return handle.call(this);
  };
}

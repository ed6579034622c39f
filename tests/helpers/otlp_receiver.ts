/**
 * A small OpenTelemetry collector for tests: it speaks OTLP/HTTP with JSON
 * bodies (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), answers the three exports
 * the runtime sends (`/v1/traces`, `/v1/logs`, `/v1/metrics`), decodes the
 * spans and log records, and keeps every export's body as received, so a
 * test can search all of it (names, attributes, resources, events, statuses,
 * log bodies, metric points) for what must never leave the process.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** Attribute values, unwrapped from OTLP's `{stringValue: …}` form (the last of a repeated key). */
  attributes: Record<string, unknown>;
  /** Every attribute as sent, repeated keys included, in order. */
  attributeList: [string, unknown][];
  events: string[];
  startNs: bigint;
  endNs: bigint;
  /** 2 is an error (OTLP's STATUS_CODE_ERROR). */
  statusCode: number;
  statusMessage: string;
}

export interface ReceivedLog {
  body: string;
  severity: string;
  traceId: string;
  attributes: Record<string, unknown>;
}

export interface ReceivedExport {
  /** `/v1/traces`, `/v1/logs` or `/v1/metrics`. */
  path: string;
  /** The request body exactly as it arrived. */
  text: string;
}

export interface OtlpReceiver {
  /** Put in OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  logs: ReceivedLog[];
  exports: ReceivedExport[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: OtlpKeyValue[];
  events?: { name: string }[];
  status?: { code?: number; message?: string };
}

interface OtlpLogRecord {
  body?: OtlpValue;
  severityText?: string;
  traceId?: string;
  attributes?: OtlpKeyValue[];
}

function unwrap(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(unwrap);
  return null;
}

function pairs(list: OtlpKeyValue[] | undefined): [string, unknown][] {
  return (list ?? []).map((a) => [a.key, unwrap(a.value)]);
}

/** OTLP/JSON writes ids as hex; some exporters send base64 (the protobuf JSON mapping). */
function hexId(id: string | undefined): string {
  if (!id) return "";
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return [...atob(id)].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}

function decodeSpan(s: OtlpSpan): ReceivedSpan {
  const attributeList = pairs(s.attributes);
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    name: s.name,
    kind: s.kind ?? 0,
    attributes: Object.fromEntries(attributeList),
    attributeList,
    events: (s.events ?? []).map((e) => e.name),
    startNs: BigInt(s.startTimeUnixNano),
    endNs: BigInt(s.endTimeUnixNano),
    statusCode: s.status?.code ?? 0,
    statusMessage: s.status?.message ?? "",
  };
}

function decodeLog(r: OtlpLogRecord): ReceivedLog {
  return {
    body: String(r.body ? unwrap(r.body) ?? "" : ""),
    severity: r.severityText ?? "",
    traceId: hexId(r.traceId),
    attributes: Object.fromEntries(pairs(r.attributes)),
  };
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const logs: ReceivedLog[] = [];
  const exports: ReceivedExport[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const type = req.headers.get("content-type") ?? "";
    if (!type.startsWith("application/json")) {
      await req.body?.cancel();
      return new Response("OTLP/HTTP JSON only", { status: 415 });
    }
    const text = await req.text();
    exports.push({ path, text });
    const body = JSON.parse(text);
    if (path === "/v1/traces") {
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of (ss.spans ?? []) as OtlpSpan[]) spans.push(decodeSpan(s));
        }
      }
    } else if (path === "/v1/logs") {
      for (const rl of body.resourceLogs ?? []) {
        for (const sl of rl.scopeLogs ?? []) {
          for (const r of (sl.logRecords ?? []) as OtlpLogRecord[]) logs.push(decodeLog(r));
        }
      }
    }
    return Response.json({});
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    logs,
    exports,
    close: () => server.shutdown(),
  };
}

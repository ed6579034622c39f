/**
 * A small OpenTelemetry collector for tests: it accepts OTLP/HTTP JSON
 * exports (`POST /v1/traces`, and answers the logs and metrics exports the
 * runtime also sends) and decodes every span it receives.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** Attribute values, unwrapped from OTLP's `{stringValue: …}` form. */
  attributes: Record<string, unknown>;
  events: string[];
  startNs: bigint;
  endNs: bigint;
  /** 2 is an error (OTLP's STATUS_CODE_ERROR). */
  statusCode: number;
}

export interface OtlpReceiver {
  /** Put in OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests seen, by path (`/v1/traces`, `/v1/logs`, …). */
  exports: Map<string, number>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: OtlpValue }[];
  events?: { name: string }[];
  status?: { code?: number };
}

function unwrap(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return null;
}

/** OTLP/JSON writes ids as hex; some exporters send base64 (the protobuf JSON mapping). */
function hexId(id: string | undefined): string {
  if (!id) return "";
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return [...atob(id)].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const exports = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    exports.set(path, (exports.get(path) ?? 0) + 1);
    const type = req.headers.get("content-type") ?? "";
    if (!type.startsWith("application/json")) {
      await req.body?.cancel();
      return new Response("OTLP/HTTP JSON only", { status: 415 });
    }
    const body = await req.json();
    if (path === "/v1/traces") {
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of (ss.spans ?? []) as OtlpSpan[]) {
            spans.push({
              traceId: hexId(s.traceId),
              spanId: hexId(s.spanId),
              parentSpanId: hexId(s.parentSpanId),
              name: s.name,
              attributes: Object.fromEntries(
                (s.attributes ?? []).map((a) => [a.key, unwrap(a.value)]),
              ),
              events: (s.events ?? []).map((e) => e.name),
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
              statusCode: s.status?.code ?? 0,
            });
          }
        }
      }
    }
    return Response.json({});
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    exports,
    close: () => server.shutdown(),
  };
}

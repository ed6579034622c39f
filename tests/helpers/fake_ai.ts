/**
 * A small OpenAI-compatible provider for tests: chat completions (streaming
 * and not, with usage), structured output (`response_format` json_schema: the
 * answer is a JSON object that fits the schema), embeddings, and failure
 * modes. Tests reach it through AI_BASE_URL and read back what the server
 * sent in `requests`.
 */

export type FakeMode =
  | "ok"
  | "unauthorized" // 401
  | "forbidden" // 403
  | "rate_limited" // 429
  | "unknown_model" // 404 with the vendor's own reason
  | "server_error"
  | "timeout"
  | "fail_mid_stream";

/**
 * How /embeddings answers: vectors, 404 (vendors without embeddings), 400
 * "not supported" (local servers whose model cannot embed), or 500.
 */
export type EmbeddingsMode = "ok" | "missing" | "unsupported" | "server_error";

export interface ChatRequestRecord {
  model: string;
  stream: boolean;
  messages: { role: string; content: string }[];
  authorization: string | null;
  /** The W3C trace context the request carried (tracing on). */
  traceparent: string | null;
  /** The request's `response_format`, when it asked for structured output. */
  responseFormat: { type: string; json_schema?: { name: string; schema: JsonSchema } } | null;
}

/** The subset of JSON Schema that structured output uses. */
export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  maxItems?: number;
}

export interface FakeAi {
  /** Base URL to put in AI_BASE_URL (ends in /v1). */
  baseUrl: string;
  mode: FakeMode;
  /** Reply text, or a function of the request. */
  reply: string | ((req: ChatRequestRecord) => string);
  /**
   * The object a structured-output request gets (serialised as the reply's
   * content); by default one built from the schema (`fromSchema`).
   */
  structured: ((req: ChatRequestRecord) => unknown) | null;
  /** Delay before the first byte, ms. */
  latencyMs: number;
  /** Delay between streamed chunks, ms. */
  chunkDelayMs: number;
  /** Whether /embeddings answers (false = 404, as for vendors without embeddings). */
  embeddings: boolean;
  /** Finer control of /embeddings; `missing` is what `embeddings: false` does. */
  embeddingsMode: EmbeddingsMode;
  /** The vector of a text; `fakeEmbedding` (word hashes) unless a test sets its own. */
  embed: (text: string) => number[];
  requests: ChatRequestRecord[];
  embeddingRequests: number;
  /** Every text sent to /embeddings, in order (what was embedded, not only how often). */
  embeddedTexts: string[];
  /** Streams cancelled by the client before they finished. */
  aborted: number;
  close(): Promise<void>;
}

const DIM = 64;

/** Deterministic bag-of-words vector: similar texts get similar vectors. */
export function fakeEmbedding(text: string): number[] {
  const v = new Array(DIM).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[Math.abs(h) % DIM] += 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/**
 * An instance of a structured-output schema, as a model would fill it: the
 * first allowed value of each enum, one item per array, `fake <field>` for text.
 */
export function fromSchema(schema: JsonSchema, field = "value"): unknown {
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fromSchema(v, k)]),
      );
    case "array":
      return schema.maxItems === 0 || !schema.items ? [] : [fromSchema(schema.items, field)];
    case "number":
      return 0.9;
    case "integer":
      return 1;
    case "boolean":
      return true;
    default:
      return `fake ${field}`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startFakeAi(
  init: Partial<
    Pick<
      FakeAi,
      | "mode"
      | "reply"
      | "structured"
      | "latencyMs"
      | "chunkDelayMs"
      | "embeddings"
      | "embeddingsMode"
      | "embed"
    >
  > = {},
): FakeAi {
  const state: Omit<FakeAi, "baseUrl" | "close"> = {
    mode: "ok",
    reply: "This is the fake answer.",
    structured: null,
    latencyMs: 0,
    chunkDelayMs: 0,
    embeddings: true,
    embeddingsMode: "ok",
    embed: fakeEmbedding,
    requests: [],
    embeddingRequests: 0,
    embeddedTexts: [],
    aborted: 0,
    ...init,
  };
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const body = await req.json().catch(() => ({}));
      if (url.pathname.endsWith("/embeddings")) {
        state.embeddingRequests++;
        const mode = state.embeddings ? state.embeddingsMode : "missing";
        if (mode === "missing") return Response.json({ error: { message: "no" } }, { status: 404 });
        if (mode === "unsupported") {
          return Response.json(
            { error: { message: "This model does not support embeddings" } },
            { status: 400 },
          );
        }
        if (mode === "server_error") {
          return Response.json({ error: { message: "embeddings exploded" } }, { status: 500 });
        }
        if (state.mode === "unauthorized") {
          return Response.json({ error: { message: "bad key" } }, { status: 401 });
        }
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        state.embeddedTexts.push(...inputs);
        return Response.json({
          object: "list",
          model: body.model,
          data: inputs.map((t, i) => ({
            object: "embedding",
            index: i,
            embedding: state.embed(t),
          })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        });
      }
      if (!url.pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      }
      const record: ChatRequestRecord = {
        model: body.model,
        stream: Boolean(body.stream),
        messages: body.messages ?? [],
        authorization: req.headers.get("authorization"),
        traceparent: req.headers.get("traceparent"),
        responseFormat: body.response_format ?? null,
      };
      state.requests.push(record);
      if (state.mode === "unauthorized") {
        return Response.json({ error: { message: "Incorrect API key provided" } }, { status: 401 });
      }
      if (state.mode === "forbidden") {
        return Response.json({ error: { message: "Key not allowed" } }, { status: 403 });
      }
      if (state.mode === "rate_limited") {
        return Response.json({ error: { message: "Rate limit reached" } }, { status: 429 });
      }
      if (state.mode === "unknown_model") {
        return Response.json(
          { error: { message: `The model \`${body.model}\` does not exist` } },
          { status: 404 },
        );
      }
      if (state.mode === "server_error") {
        return Response.json({ error: { message: "upstream exploded" } }, { status: 500 });
      }
      if (state.mode === "timeout") {
        await sleep(120_000).catch(() => {});
        return new Response("late");
      }
      if (state.latencyMs) await sleep(state.latencyMs);
      const schema = record.responseFormat?.type === "json_schema"
        ? record.responseFormat.json_schema?.schema
        : undefined;
      const text = schema
        ? JSON.stringify(state.structured ? state.structured(record) : fromSchema(schema))
        : typeof state.reply === "function"
        ? state.reply(record)
        : state.reply;
      const promptTokens = record.messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 0);
      const completionTokens = Math.max(1, Math.ceil(text.length / 4));
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      };
      if (!record.stream) {
        return Response.json({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: text },
            finish_reason: "stop",
          }],
          usage,
        });
      }
      const pieces = text.match(/\S+\s*/g) ?? [text];
      const enc = new TextEncoder();
      const mode = state.mode;
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          const send = (obj: unknown) =>
            controller.enqueue(enc.encode(`data: ${JSON.stringify(obj)}\n\n`));
          const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
            id: "chatcmpl-fake",
            object: "chat.completion.chunk",
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: finish }],
          });
          try {
            send(chunk({ role: "assistant", content: "" }));
            for (let i = 0; i < pieces.length; i++) {
              if (cancelled) return;
              if (mode === "fail_mid_stream" && i === Math.ceil(pieces.length / 2)) {
                controller.error(new Error("provider dropped the connection"));
                return;
              }
              send(chunk({ content: pieces[i] }));
              if (state.chunkDelayMs) await sleep(state.chunkDelayMs);
            }
            send(chunk({}, "stop"));
            send({ ...chunk({}), choices: [], usage });
            controller.enqueue(enc.encode("data: [DONE]\n\n"));
            controller.close();
          } catch {
            // client went away
          }
        },
        cancel() {
          cancelled = true;
          state.aborted++;
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  );
  const port = (server.addr as Deno.NetAddr).port;
  const fake = state as FakeAi;
  fake.baseUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = async () => {
    ac.abort();
    await server.finished.catch(() => {});
  };
  return fake;
}

/** A base URL where nothing listens: "connection refused". */
export function refusedBaseUrl(): string {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return `http://127.0.0.1:${port}/v1`;
}

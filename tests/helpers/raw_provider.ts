/**
 * An OpenAI-compatible provider on a raw TCP socket, for what a real HTTP
 * server never does on purpose: chunked bodies split at awkward places, a
 * body cut short, a kept-alive connection closed while idle, a stall. Each
 * request is answered by the test's `answer` script, which writes bytes as it
 * likes; the helper records which connection carried each request and when
 * the client closed each connection.
 */

export interface RawRequest {
  /** The connection that carried it (1, 2, … in accept order). */
  conn: number;
  method: string;
  path: string;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

export interface RawReply {
  /** Write bytes (strings as UTF-8); rejects once the client has gone. */
  write(data: string | Uint8Array): Promise<void>;
  /** Close the connection from the provider's side. */
  close(): void;
}

export interface RawProvider {
  baseUrl: string;
  /** Chat requests (embeddings are answered 404 and not listed). */
  requests: RawRequest[];
  /** Connections accepted so far. */
  readonly accepted: number;
  /**
   * Connections the client closed, with the time (performance.now()) it was
   * seen: at once while waiting for a request, at the next write mid-answer.
   */
  clientClosed: Map<number, number>;
  answer: (req: RawRequest, reply: RawReply) => Promise<void> | void;
  close(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chat completion chunk's SSE event, as OpenAI sends it. */
export function sseEvent(
  delta: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  const chunk = {
    id: "chatcmpl-raw",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The SSE body of a streamed reply: one event per word, usage, then [DONE]. */
export function sseReply(text: string): string {
  const words = text.match(/\S+\s*/g) ?? [text];
  return sseEvent({ role: "assistant", content: "" }) +
    words.map((w) => sseEvent({ content: w })).join("") +
    sseEvent({}, {
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: words.length, total_tokens: 5 + words.length },
    }) +
    "data: [DONE]\n\n";
}

/** A chat.completion JSON answer (non-streamed). */
export function completionJson(text: string): string {
  return JSON.stringify({
    id: "chatcmpl-raw",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  });
}

/** A body in chunked transfer coding, one chunk per piece, with its terminator. */
export function chunked(pieces: (string | Uint8Array)[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const p of pieces) {
    const bytes = typeof p === "string" ? enc.encode(p) : p;
    if (bytes.length === 0) continue;
    parts.push(enc.encode(`${bytes.length.toString(16)}\r\n`), bytes, enc.encode("\r\n"));
  }
  parts.push(enc.encode("0\r\n\r\n"));
  return concat(parts);
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A response head (status line, fields, blank line). */
export function head(status: number, fields: Record<string, string | number>): string {
  return `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Error"}\r\n` +
    Object.entries(fields).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
}

/** The usual answer: a streamed reply as one chunked write, a JSON reply with a length. */
export async function answerNormally(
  req: RawRequest,
  reply: RawReply,
  text: string,
): Promise<void> {
  if (req.body.stream) {
    await reply.write(
      head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
    );
    await reply.write(chunked(sseReply(text).split(/(?<=\n\n)/)));
  } else {
    const body = enc.encode(completionJson(text));
    await reply.write(
      head(200, { "content-type": "application/json", "content-length": body.length }),
    );
    await reply.write(body);
  }
}

export function startRawProvider(answer: RawProvider["answer"]): RawProvider {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let accepted = 0;
  const state: RawProvider = {
    baseUrl: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`,
    requests: [],
    get accepted() {
      return accepted;
    },
    clientClosed: new Map(),
    answer,
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop.catch(() => {});
    },
  };
  const serve = async (conn: Deno.Conn, id: number) => {
    let buf: Uint8Array = new Uint8Array(0);
    let closed = false;
    const reply: RawReply = {
      async write(data) {
        const bytes = typeof data === "string" ? enc.encode(data) : data;
        let off = 0;
        while (off < bytes.length) off += await conn.write(bytes.subarray(off));
      },
      close() {
        closed = true;
        try {
          conn.close();
        } catch { /* closed */ }
      },
    };
    /** Read until `buf` holds `n` bytes, or resolve false at the client's close. */
    const need = async (n: number): Promise<boolean> => {
      while (buf.length < n) {
        const chunk = new Uint8Array(4096);
        const got = await conn.read(chunk).catch(() => null);
        if (got === null) return false;
        buf = concat([buf, chunk.subarray(0, got)]);
      }
      return true;
    };
    try {
      while (!closed) {
        let end: number;
        while ((end = dec.decode(buf).indexOf("\r\n\r\n")) < 0) {
          if (!await need(buf.length + 1)) {
            if (!closed) state.clientClosed.set(id, performance.now());
            return;
          }
        }
        const lines = dec.decode(buf.subarray(0, end)).split("\r\n");
        buf = buf.subarray(end + 4);
        const [method, path] = lines[0]!.split(" ");
        const headers = new Headers();
        for (const l of lines.slice(1)) {
          const i = l.indexOf(":");
          headers.append(l.slice(0, i), l.slice(i + 1).trim());
        }
        const length = Number(headers.get("content-length") ?? 0);
        if (!await need(length)) return;
        const text = dec.decode(buf.subarray(0, length));
        buf = buf.subarray(length);
        const req: RawRequest = {
          conn: id,
          method: method!,
          path: path!,
          headers,
          body: text ? JSON.parse(text) : null,
        };
        if (path!.endsWith("/embeddings")) {
          const body = '{"error":{"message":"no embeddings here"}}';
          await reply.write(
            head(404, { "content-type": "application/json", "content-length": body.length }) + body,
          );
          continue;
        }
        state.requests.push(req);
        await state.answer(req, reply);
      }
    } catch {
      // The client went away mid-answer: seen at the next write.
      if (!closed) state.clientClosed.set(id, performance.now());
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const loop = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      serve(conn, ++accepted);
    }
  })();
  return state;
}

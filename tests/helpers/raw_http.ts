/**
 * HTTP/1.1 over a raw TCP socket, for what fetch hides: a declared
 * Content-Length that is never sent in full, or a chunked upload that keeps
 * going until the server answers. Reports how much of the body was written
 * before the answer arrived.
 */

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
  /** Body bytes written before the status line was read. */
  bytesSent: number;
}

const encoder = new TextEncoder();

/**
 * POST `path` and send up to `totalBytes` of body (`chunk` repeated), either
 * under a Content-Length of `totalBytes` or chunked; stop writing as soon as
 * the server answers, and return the answer.
 */
export async function rawUpload(
  port: number,
  path: string,
  opts: { totalBytes: number; chunked: boolean; headers?: Record<string, string> },
): Promise<RawAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    opts.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${opts.totalBytes}`,
    ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  await conn.write(encoder.encode(head));
  let answered = false;
  let bytesSent = 0;
  const piece = encoder.encode('{"x":"' + "a".repeat(65_536 - 8) + '",');
  const writer = (async () => {
    try {
      while (!answered && bytesSent < opts.totalBytes) {
        const data = opts.chunked
          ? concat(
            encoder.encode(piece.length.toString(16) + "\r\n"),
            piece,
            encoder.encode("\r\n"),
          )
          : piece;
        let off = 0;
        while (off < data.length) off += await conn.write(data.subarray(off));
        bytesSent += piece.length;
      }
    } catch { /* the server closed the connection: that is an answer too */ }
  })();
  const answer = await readAnswer(conn);
  answered = true;
  const sent = bytesSent;
  try {
    conn.close();
  } catch { /* already closed */ }
  await writer;
  return { ...answer, bytesSent: sent };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Read one response (Content-Length or chunked body) from the socket. */
async function readAnswer(conn: Deno.Conn): Promise<Omit<RawAnswer, "bytesSent">> {
  const buf = new Uint8Array(65_536);
  let text = "";
  const decoder = new TextDecoder();
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += decoder.decode(buf.subarray(0, n), { stream: true });
    const end = text.indexOf("\r\n\r\n");
    if (end === -1) continue;
    const headers = parseHeaders(text.slice(0, end));
    const rest = text.slice(end + 4);
    const length = headers.get("content-length");
    if (length !== null && rest.length >= Number(length)) break;
    if (headers.get("transfer-encoding") === "chunked" && rest.endsWith("0\r\n\r\n")) break;
  }
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) throw new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`);
  const status = Number(text.slice(9, 12));
  const headers = parseHeaders(text.slice(0, end));
  let body = text.slice(end + 4);
  if (headers.get("transfer-encoding") === "chunked") body = dechunk(body);
  return { status, headers, body };
}

function parseHeaders(block: string): Headers {
  const headers = new Headers();
  for (const line of block.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return headers;
}

function dechunk(body: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(body.slice(at, eol), 16);
    if (!size) break;
    out += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return out;
}

/**
 * A response's status line and header fields (RFC 9112 §4 and §5), read from
 * a connection's buffer, and how its body is framed (§6.3). Lines may end in
 * a bare LF, as the RFC lets a recipient accept; anything else malformed is a
 * protocol error, never guessed at.
 */
import type { Http1Connection } from "./connection.ts";

export type BodyFraming =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "close" }; // until the connection closes

export interface ResponseHead {
  status: number;
  statusText: string;
  headers: Headers;
  framing: BodyFraming;
  /** Whether the connection may carry another request once the body is read. */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms, when it gave one. */
  keepAliveMs: number | null;
}

export class ProtocolError extends Error {
  override name = "ProtocolError";
}

/** Header bytes as a ByteString (one character per byte, as Headers wants them). */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    s += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return s;
}

/** The end of the head (index after its blank line) in `buf[from, to)`, or -1. */
function headEnd(buf: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    if (buf[i] !== 10) continue; // LF
    if (i + 1 < to && buf[i + 1] === 10) return i + 2; // LF LF
    if (i + 2 < to && buf[i + 1] === 13 && buf[i + 2] === 10) return i + 3; // LF CR LF
  }
  return -1;
}

/**
 * Read one response head (skipping 1xx interim responses). Rejects with the
 * socket's error, or a ProtocolError; resolves null when the connection
 * closed before a single byte of it arrived.
 */
export async function readResponseHead(
  c: Http1Connection,
  method: string,
): Promise<ResponseHead | null> {
  let sawBytes = false;
  while (true) {
    let end = headEnd(c.buf, c.start, c.end);
    while (end < 0) {
      const n = await c.fill();
      if (n === 0) {
        if (!sawBytes && c.buffered === 0) return null;
        throw new ProtocolError("the connection closed in the middle of the response head");
      }
      sawBytes = true;
      end = headEnd(c.buf, c.start, c.end); // heads are small: scanning again costs nothing
    }
    sawBytes = true;
    const text = latin1(c.buf.subarray(c.start, end));
    c.start = end;
    const head = parseHead(text, method);
    if (head) return head;
    // 1xx: an interim answer (100 Continue, 103 Early Hints); the real one follows.
  }
}

/** The parsed head, or null for an interim 1xx response. */
function parseHead(text: string, method: string): ResponseHead | null {
  const lines = text.split("\n");
  const statusLine = lines[0]!.replace(/\r$/, "");
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) throw new ProtocolError(`malformed status line: ${statusLine.slice(0, 80)}`);
  const minor = m[1]!;
  const status = Number(m[2]);
  if (status === 101) throw new ProtocolError("unexpected protocol switch (101)");
  if (status < 200) return null;
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line === "") break;
    if (line[0] === " " || line[0] === "\t") {
      throw new ProtocolError("obsolete header line folding"); // RFC 9112 §5.2 lets us refuse it
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw new ProtocolError(`malformed header line: ${line.slice(0, 80)}`);
    try {
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    } catch {
      throw new ProtocolError(`invalid header: ${line.slice(0, 80)}`);
    }
  }
  const connection = (headers.get("connection") ?? "").toLowerCase();
  let keepAlive = minor === "1"
    ? !/(^|,)\s*close\s*(,|$)/.test(connection)
    : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);
  const framing = bodyFraming(status, method, headers);
  // A body read to the close ends the connection; one framed both ways (TE and CL) may
  // have been read differently by something in between, so it is not trusted further.
  if (
    framing.kind === "close" ||
    (framing.kind === "chunked" && headers.has("content-length"))
  ) keepAlive = false;
  const hint = /timeout\s*=\s*(\d+)/i.exec(headers.get("keep-alive") ?? "");
  return {
    status,
    statusText: m[3] ?? "",
    headers,
    framing,
    keepAlive,
    keepAliveMs: hint ? Number(hint[1]) * 1000 : null,
  };
}

/** RFC 9112 §6.3, in its order. */
function bodyFraming(status: number, method: string, headers: Headers): BodyFraming {
  if (method === "HEAD" || status === 204 || status === 304) return { kind: "none" };
  const te = headers.get("transfer-encoding");
  if (te !== null) {
    // A final `chunked` frames the body; any other coding runs to the close.
    const codings = te.toLowerCase().split(",").map((s) => s.trim());
    return codings.at(-1) === "chunked" ? { kind: "chunked" } : { kind: "close" };
  }
  const cl = headers.get("content-length");
  if (cl !== null) {
    // Repeated fields arrive joined ("5, 5"): all must agree.
    const values = new Set(cl.split(",").map((s) => s.trim()));
    const only = values.size === 1 ? [...values][0]! : "";
    if (!/^\d{1,15}$/.test(only)) throw new ProtocolError(`invalid content-length: ${cl}`);
    return { kind: "length", length: Number(only) };
  }
  return { kind: "close" };
}

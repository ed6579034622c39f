/**
 * A response body taken off its connection as it is framed (RFC 9112 §6 and
 * §7.1): a Content-Length, chunked transfer coding, or until the connection
 * closes. Each `next()` hands over everything the buffer already holds (a
 * provider's SSE fragment and the chunk framing after it usually arrive in
 * one read), so the body's end is seen as soon as its last bytes are here and
 * the connection can go back to the pool without another read.
 */
import { type Http1Connection, READ_SIZE } from "./connection.ts";
import { type BodyFraming, ProtocolError } from "./response_head.ts";

/** A known remainder at least this large is read straight into its own array. */
const DIRECT_READ_MIN = 16 * 1024;
const DIRECT_READ_MAX = 64 * 1024;
/** A chunk-size or trailer line longer than this is not HTTP. */
const MAX_LINE = READ_SIZE;

const CR = 13;
const LF = 10;

type ChunkState = "size" | "data" | "data-end" | "trailers";

export class BodyDecoder {
  /** The whole body has been taken off the connection. */
  done = false;
  #remaining: number;
  #chunk: ChunkState = "size";

  constructor(private readonly c: Http1Connection, private readonly framing: BodyFraming) {
    this.#remaining = framing.kind === "length" ? framing.length : 0;
    if (framing.kind === "none" || (framing.kind === "length" && framing.length === 0)) {
      this.done = true;
    }
  }

  /** The next bytes of the body, or null at its end. Rejects on a socket error or a body cut short. */
  async next(): Promise<Uint8Array | null> {
    while (!this.done) {
      const piece = this.framing.kind === "chunked" ? this.#fromChunks() : this.#fromBuffer();
      if (piece) return piece;
      if (this.done) break;
      const direct = this.#directSize();
      if (direct > 0) {
        const bytes = await this.c.readDirect(direct);
        if (bytes === null) throw this.#cutShort();
        if (this.framing.kind === "length") {
          this.#remaining -= bytes.length;
          if (this.#remaining === 0) this.done = true;
        } else {
          this.#remaining -= bytes.length;
          if (this.#remaining === 0) this.#chunk = "data-end";
        }
        return bytes;
      }
      if (await this.c.fill() === 0) {
        if (this.framing.kind === "close") {
          this.done = true;
          break;
        }
        throw this.#cutShort();
      }
    }
    return null;
  }

  #cutShort(): Error {
    return new ProtocolError("connection closed before the body ended");
  }

  /** How much to read past the small buffer: only when it is empty and a large remainder is known. */
  #directSize(): number {
    if (this.c.buffered > 0 || this.c.reading) return 0;
    const known = this.framing.kind === "length" ||
        (this.framing.kind === "chunked" && this.#chunk === "data")
      ? this.#remaining
      : 0;
    return known >= DIRECT_READ_MIN ? Math.min(known, DIRECT_READ_MAX) : 0;
  }

  /** Content-Length and read-to-close bodies: whatever is buffered, up to the body's end. */
  #fromBuffer(): Uint8Array | null {
    const c = this.c;
    if (c.buffered === 0) return null;
    if (this.framing.kind === "close") return c.take(c.buffered);
    const n = Math.min(c.buffered, this.#remaining);
    this.#remaining -= n;
    if (this.#remaining === 0) this.done = true;
    return c.take(n);
  }

  /**
   * Chunked: walk the framing in the buffer as far as it goes and return the
   * data found, joined (null when none is buffered yet).
   */
  #fromChunks(): Uint8Array | null {
    const c = this.c;
    const buf = c.buf;
    const spans: [number, number][] = [];
    let total = 0;
    walk: while (!this.done) {
      switch (this.#chunk) {
        case "size": {
          const line = this.#line();
          if (line === null) break walk;
          // chunk-size [; extensions]: the extensions mean nothing to us.
          const hex = line.split(";", 1)[0]!.trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
            throw new ProtocolError(`malformed chunk size: ${line.slice(0, 40)}`);
          }
          this.#remaining = parseInt(hex, 16);
          this.#chunk = this.#remaining === 0 ? "trailers" : "data";
          break;
        }
        case "data": {
          const n = Math.min(c.buffered, this.#remaining);
          if (n === 0) break walk;
          spans.push([c.start, c.start + n]);
          total += n;
          c.start += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#chunk = "data-end";
          break;
        }
        case "data-end": {
          if (c.buffered === 0) break walk;
          if (buf[c.start] === LF) {
            c.start += 1;
          } else if (buf[c.start] === CR) {
            if (c.buffered < 2) break walk;
            if (buf[c.start + 1] !== LF) throw new ProtocolError("chunk data not followed by CRLF");
            c.start += 2;
          } else {
            throw new ProtocolError("chunk data longer than its size");
          }
          this.#chunk = "size";
          break;
        }
        case "trailers": {
          const line = this.#line();
          if (line === null) break walk;
          if (line === "") this.done = true; // trailer fields themselves are not passed on
          break;
        }
      }
    }
    if (total === 0) return null;
    if (spans.length === 1) return buf.slice(spans[0]![0], spans[0]![1]);
    const out = new Uint8Array(total);
    let at = 0;
    for (const [from, to] of spans) {
      out.set(buf.subarray(from, to), at);
      at += to - from;
    }
    return out;
  }

  /** One buffered line without its CRLF (consumed), or null when its end is not here yet. */
  #line(): string | null {
    const c = this.c;
    const lf = c.buf.subarray(c.start, c.end).indexOf(LF);
    if (lf < 0) {
      if (c.buffered > MAX_LINE) throw new ProtocolError("chunk framing line too long");
      return null;
    }
    let end = c.start + lf;
    if (end > c.start && c.buf[end - 1] === CR) end -= 1;
    const line = String.fromCharCode(...c.buf.subarray(c.start, end));
    c.start += lf + 1;
    return line;
  }
}

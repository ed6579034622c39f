/**
 * One HTTP/1.1 connection to a provider: the socket and the bytes read from
 * it but not yet consumed. Reads go into a small buffer that belongs to the
 * connection: a streamed reply that waits for its next token holds one 4 KiB
 * read and nothing else, where the runtime's fetch holds (and leaves behind
 * per fragment) 64 KiB (docs/BENCHMARKS.md, issue 25). Bodies that announce a
 * large size bypass it (`readDirect`), so big JSON answers do not take a
 * thousand small reads.
 */

/** The read size while a response trickles in: an SSE fragment is a few hundred bytes. */
export const READ_SIZE = 4096;
/** A response head larger than this is refused (the buffer grows to hold one head, no more). */
export const MAX_HEAD_BYTES = 64 * 1024;

export class Http1Connection {
  /** Unconsumed bytes are `buf[start, end)`. */
  buf = new Uint8Array(READ_SIZE);
  start = 0;
  end = 0;
  /** The peer closed its side (a read returned end of file). */
  eof = false;
  /** Closed by us: the socket's resource is gone. */
  closed = false;
  #reading: Promise<number> | null = null;

  constructor(readonly conn: Deno.Conn) {}

  /** Bytes buffered and not consumed yet. */
  get buffered(): number {
    return this.end - this.start;
  }

  /** Whether a read is in flight (started by the idle watch or a body). */
  get reading(): boolean {
    return this.#reading !== null;
  }

  /**
   * Read more bytes into the buffer: resolves to how many arrived, 0 at end of
   * file; rejects with the socket's error. A read already in flight is joined,
   * not doubled: the idle watch's read becomes the next response's first read.
   */
  fill(): Promise<number> {
    return this.#reading ??= this.#read();
  }

  async #read(): Promise<number> {
    try {
      this.#makeRoom();
      const n = await this.conn.read(this.buf.subarray(this.end));
      if (n === null) {
        this.eof = true;
        return 0;
      }
      this.end += n;
      return n;
    } finally {
      this.#reading = null;
    }
  }

  /** Free space at the buffer's end: move what is left to the front, grow only for a long head. */
  #makeRoom(): void {
    const left = this.end - this.start;
    if (left === 0) {
      this.start = this.end = 0;
      if (this.buf.length > READ_SIZE) this.buf = new Uint8Array(READ_SIZE); // back to small
      return;
    }
    if (this.end < this.buf.length) return;
    if (this.start > 0) {
      this.buf.copyWithin(0, this.start, this.end);
    } else {
      if (this.buf.length >= MAX_HEAD_BYTES) {
        throw new Error("the response head is larger than 64 KiB");
      }
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf.subarray(this.start, this.end));
      this.buf = grown;
    }
    this.start = 0;
    this.end = left;
  }

  /**
   * Read straight into a fresh array of `size` bytes (the buffer must be
   * empty): for a body that announced at least that much, whose bytes are
   * handed on as they are instead of copied out of the small buffer.
   */
  async readDirect(size: number): Promise<Uint8Array | null> {
    const target = new Uint8Array(size);
    const n = await this.conn.read(target);
    if (n === null) {
      this.eof = true;
      return null;
    }
    return target.subarray(0, n);
  }

  /** Write all of `data`. */
  async write(data: Uint8Array): Promise<void> {
    let off = 0;
    while (off < data.length) off += await this.conn.write(data.subarray(off));
  }

  /** Consume `n` buffered bytes and return a copy (the buffer is reused by the next read). */
  take(n: number): Uint8Array {
    const out = this.buf.slice(this.start, this.start + n);
    this.start += n;
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch { /* already closed by the runtime */ }
  }
}

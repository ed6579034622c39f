/**
 * A streamed chat completion read from the provider's raw response: its
 * server-sent events (the WHATWG event-stream format) parsed as they arrive,
 * each `data:` payload handed to `onChunk` in the same turn as the bytes that
 * completed it. The SDK's own stream does the same work through an async
 * generator, a line decoder and a race against the abort signal per read:
 * several promises per fragment between the socket and our first delta, and
 * more objects held by every stream that waits for its next token.
 *
 * It answers as the SDK's stream does (openai v7, `Stream.fromSSEResponse`),
 * so callers see the same outcomes: `[DONE]` ends it, an `error` event or a
 * payload with `error` throws the SDK's APIError, a payload that is not JSON
 * throws the same SyntaxError, a body that ends without `[DONE]` ends it
 * quietly, and the caller's abort (`signal`) ends it quietly (the caller tells
 * a cut-off answer from a complete one).
 *
 * `onChunk` may ask for a pause (return true): the rest of what has arrived is
 * parsed one event-loop turn later. The first visible delta uses it, so that
 * the visitor's SSE frame is written before the rest of a burst (a provider
 * often sends several fragments in one packet) and the reply's storing are
 * worked through: the server writes only once our JavaScript yields
 * (docs/BENCHMARKS.md, issue 25).
 */
import OpenAI from "openai";

export type ChatChunk = OpenAI.ChatCompletionChunk;

const LF = 10;
const CR = 13;

export async function readChatStream(
  response: Response,
  signal: AbortSignal,
  onChunk: (chunk: ChatChunk) => boolean | void,
): Promise<void> {
  if (!response.body) {
    throw new OpenAI.OpenAIError("Attempted to iterate over a response with no body");
  }
  const reader = response.body.getReader();
  const events = new EventParser(response.headers, onChunk);
  let finished = false;
  try {
    while (!events.done) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        events.end();
        return;
      }
      let rest: Uint8Array | null = value;
      while (rest && !events.done) {
        rest = events.push(rest);
        if (rest) await nextTurn();
      }
    }
  } catch (err) {
    if (signal.aborted) return; // the body was errored by the abort: the caller decides
    throw err;
  } finally {
    // Stopped before the body's end ([DONE] with bytes still to come, or an error):
    // the connection is closed rather than read further.
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** One turn of the event loop: whatever waits to be written goes out first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** One decoder for every stream: lines are decoded whole, so none keeps decoder state. */
const utf8 = new TextDecoder();

/** Event-stream parsing over bytes: lines end in CRLF, LF or CR; a blank line dispatches. */
class EventParser {
  done = false;
  /** The bytes of a line whose end has not arrived yet (a copy: the chunk is not kept). */
  #partial: Uint8Array | null = null;
  /** The last byte seen was a CR: an LF right after it belongs to the same line end. */
  #afterCr = false;
  #event = "";
  #data: string[] = [];
  /** `onChunk` asked to pause after the event just dispatched. */
  #pause = false;

  constructor(
    private readonly headers: Headers,
    private readonly onChunk: (chunk: ChatChunk) => boolean | void,
  ) {}

  /** Parse `bytes`; what is left when `onChunk` asked for a pause is returned, to push later. */
  push(bytes: Uint8Array): Uint8Array | null {
    let from = 0;
    if (this.#afterCr && bytes[0] === LF) from = 1;
    this.#afterCr = false;
    for (let i = from; i < bytes.length && !this.done; i++) {
      const b = bytes[i];
      if (b !== LF && b !== CR) continue;
      const line = this.#text(bytes.subarray(from, i));
      if (b === CR) {
        if (i + 1 < bytes.length) {
          if (bytes[i + 1] === LF) i++;
        } else {
          this.#afterCr = true;
        }
      }
      from = i + 1;
      this.#field(line);
      if (this.#pause) {
        this.#pause = false;
        return !this.done && from < bytes.length ? bytes.subarray(from) : null;
      }
    }
    if (!this.done && from < bytes.length) {
      const rest = bytes.subarray(from);
      this.#partial = this.#partial ? concat(this.#partial, rest) : rest.slice();
    }
    return null;
  }

  /** A finished line's text, with the bytes kept from earlier chunks in front. */
  #text(tail: Uint8Array): string {
    if (!this.#partial) return utf8.decode(tail);
    const whole = concat(this.#partial, tail);
    this.#partial = null;
    return utf8.decode(whole);
  }

  /** The body ended: an event still being built is dispatched, as the SDK does. */
  end(): void {
    if (this.done) return;
    if (this.#partial) this.#field(this.#text(new Uint8Array(0)));
    if (!this.done) this.#field("");
  }

  #field(line: string): void {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 58) return; // ":" a comment
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === "data") this.#data.push(value);
    else if (name === "event") this.#event = value;
  }

  #dispatch(): void {
    if (this.#data.length === 0 && !this.#event) return;
    const data = this.#data.length === 1 ? this.#data[0]! : this.#data.join("\n");
    const event = this.#event;
    this.#data = [];
    this.#event = "";
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let parsed;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
    }
    if (event === "error") {
      throw new OpenAI.APIError(undefined, parsed?.error ?? parsed, undefined, this.headers);
    }
    if (parsed && parsed.error) {
      throw new OpenAI.APIError(undefined, parsed.error, undefined, this.headers);
    }
    if (this.onChunk(parsed) === true) this.#pause = true;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

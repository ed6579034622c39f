/**
 * JSON-lines logger. One object per line so log shippers need no parser;
 * callers pass fields, never raw request bodies, so secrets stay out.
 */
import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const encoder = new TextEncoder();
const FLUSH_BYTES = 64 * 1024;
const FLUSH_EVERY_MS = 25;
// Lines are encoded into one reused byte buffer: holding them as strings
// until the flush kept them alive past the young generation, and the
// promotions cost more than the formatting (docs/BENCHMARKS.md). They are
// first joined into a short string (up to PENDING_CHARS) so that one
// `encodeInto` call, a native call of its own, serves a few dozen lines.
const out = new Uint8Array(FLUSH_BYTES);
let used = 0;
let pending = "";
const PENDING_CHARS = 4096;
let tickerStarted = false;

function writeAll(data: Uint8Array): void {
  let written = 0;
  try {
    while (written < data.length) written += Deno.stdout.writeSync(data.subarray(written));
  } catch {
    // stdout closed (a detached process): logs are best effort.
  }
}

/** Move the pending lines into the byte buffer (writing it out first if they do not fit). */
function encodePending(): void {
  const text = pending;
  pending = "";
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (used + text.length * 3 > FLUSH_BYTES) {
    writeAll(out.subarray(0, used));
    used = 0;
  }
  if (text.length * 3 > FLUSH_BYTES) {
    writeAll(encoder.encode(text));
  } else {
    used += encoder.encodeInto(text, out.subarray(used)).written;
  }
}

/**
 * Write buffered info/debug lines to stdout now. Buffering turns one blocking
 * write per request into one per 25 ms (or per 64 KiB), which was about half
 * of a trivial request's cost; warnings and errors are never buffered, and
 * the buffer is flushed on exit.
 */
export function flushLogs(): void {
  if (pending.length > 0) encodePending();
  if (used === 0) return;
  writeAll(out.subarray(0, used));
  used = 0;
}

globalThis.addEventListener("unload", flushLogs);

/**
 * Text for the operator's terminal (the start banner, with the demo's
 * password and token), written to stdout directly: with tracing on, the
 * runtime exports whatever passes through `console` as OTLP log records,
 * and a collector is no place for credentials (docs/operations.md).
 */
export function writeToTerminal(text: string): void {
  flushLogs();
  writeAll(encoder.encode(text.endsWith("\n") ? text : `${text}\n`));
}

function buffer(line: string): void {
  pending = pending.length === 0 ? line + "\n" : pending + line + "\n";
  if (pending.length >= PENDING_CHARS) encodePending();
  if (!tickerStarted) {
    // One unref'd ticker for the process: a timer per line cost as much as the write.
    tickerStarted = true;
    Deno.unrefTimer(setInterval(flushLogs, FLUSH_EVERY_MS));
  }
}

let lastMs = 0;
let lastIso = "";

/** ISO time, computed once per millisecond: busy servers log many lines per ms. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** `{"time":…,"level":…,"msg":…,…fields}` without an intermediate object spread. */
function formatLine(level: string, msg: string, fields: Record<string, unknown>): string {
  const head = `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(msg)}`;
  const rest = JSON.stringify(fields);
  return rest.length > 2 ? `${head},${rest.slice(1)}` : `${head}}`;
}

export function createLogger(level: LogLevel): Logger {
  const min = ORDER[level];
  const write =
    (lvl: Exclude<LogLevel, "silent">) => (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < min) return;
      const line = formatLine(lvl, msg, fields);
      if (lvl === "error" || lvl === "warn") {
        flushLogs(); // keep the order of lines across the two streams
        console.error(line);
      } else {
        buffer(line);
      }
    };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Error detail for the log only: message and stack, never sent to a client. */
export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.message, stack: err.stack };
  return { error: String(err) };
}

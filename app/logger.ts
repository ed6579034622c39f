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

export function createLogger(level: LogLevel): Logger {
  const min = ORDER[level];
  const write =
    (lvl: Exclude<LogLevel, "silent">) => (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < min) return;
      const line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields });
      if (lvl === "error" || lvl === "warn") console.error(line);
      else console.log(line);
    };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Error detail for the log only: message and stack, never sent to a client. */
export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.message, stack: err.stack };
  return { error: String(err) };
}

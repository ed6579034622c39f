/**
 * A promise rejection nobody handles must not take the whole server down:
 * Deno ends the process on one by default, and during a database outage a
 * query abandoned by a request that was already answered 503 can still fail
 * when its connection is destroyed. Such a rejection is logged as an error
 * (with its cause) and the process carries on. Installed once per process.
 */
import type { Logger } from "./logger.ts";
import { describeError } from "./logger.ts";

let installed = false;

export function logStrayRejections(log: Logger): void {
  if (installed) return;
  installed = true;
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log.error("unhandled promise rejection", describeError(event.reason));
  });
}

/**
 * How late this process's event loop runs its timers: every SAMPLE_MS a timer
 * notes how far past its due time it fired, into a histogram. A request, a
 * stream's delta or a socket's frame that waits in the loop waits as long.
 * prom-client's own `nodejs_eventloop_lag_*` series read node:perf_hooks'
 * monitorEventLoopDelay, which records nothing under Deno 2.9 (a 200 ms
 * busy wait showed as 0.01 ms), so this one is ours.
 */
import client from "prom-client";

const SAMPLE_MS = 20;
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Starts sampling into a histogram of `registry`; the returned function stops it. */
export function watchEventLoopDelay(registry: client.Registry): () => void {
  const delay = new client.Histogram({
    name: "parley_event_loop_delay_seconds",
    help: `How late a ${SAMPLE_MS} ms timer of this instance fired (the event loop's delay).`,
    buckets: BUCKETS,
    registers: [registry],
  });
  let due = performance.now() + SAMPLE_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    delay.observe(Math.max(0, now - due) / 1000);
    due = now + SAMPLE_MS;
  }, SAMPLE_MS);
  // Sampling must not keep a stopping process alive.
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

/**
 * Bounded answers while the database is unreachable. A stopped database
 * fails fast (its errors map to 503 in the doors) and a new connection gives
 * up after CONNECT_TIMEOUT_SECONDS, but a query on a connection that stopped
 * carrying bytes (a network partition) would wait for ever. So a request
 * still running after OUTAGE_CHECK_MS asks the database watch for a probe; if
 * the database is silent, the request is answered 503 at once (the work goes
 * on in the background and cannot be acknowledged any more). A slow request
 * on a healthy database (an AI reply) keeps waiting, checked again every
 * OUTAGE_CHECK_MS; so does one whose probe was inconclusive (a thread too
 * busy to tell, db/database_watch.ts). Worst case: OUTAGE_ANSWER_BOUND_MS
 * (db/database_watch.ts) after the request began, or after the database went
 * silent if it began before, plus the time the server's thread spends busy.
 *
 * One sweep timer serves every request in flight, running only while some
 * are: a timer per request cost about 2 µs each (docs/BENCHMARKS.md).
 */
import type { ProbeVerdict } from "./database_watch.ts";

export const OUTAGE_CHECK_MS = 2_000;
/** How often waiting requests are looked at: a check is due up to this late. */
export const SWEEP_MS = 250;

export type OutageGuard = <T>(work: Promise<T>, unavailable: () => T) => Promise<T>;

interface Waiting {
  since: number;
  refuse(): void;
}

export function createOutageGuard(watch: { probe(): Promise<ProbeVerdict> }): OutageGuard {
  // Insertion order is age order: a re-checked request moves to the end.
  const waiting = new Set<Waiting>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let probing = false;

  const sweep = async () => {
    if (waiting.size === 0) {
      clearInterval(timer!);
      timer = null;
      return;
    }
    if (probing) return;
    const isDue = (w: Waiting, now: number) => now - w.since >= OUTAGE_CHECK_MS;
    const now = performance.now();
    const due: Waiting[] = [];
    for (const w of waiting) {
      if (!isDue(w, now)) break;
      due.push(w);
    }
    if (due.length === 0) return;
    probing = true;
    // Only silence refuses: an inconclusive probe (a saturated thread) waits on.
    const silent = (await watch.probe()) === "silent";
    probing = false;
    const after = performance.now();
    if (silent) {
      // Fresh news of a silent database: every request waiting its full
      // delay by now is answered, also one that came due while the probe ran
      // (it would otherwise wait for the next sweep and a probe of its own).
      for (const w of [...waiting]) {
        if (!isDue(w, after)) break;
        waiting.delete(w);
        w.refuse();
      }
      return;
    }
    for (const w of due) {
      if (!waiting.delete(w)) continue; // answered meanwhile
      w.since = after;
      waiting.add(w);
    }
  };

  return <T>(work: Promise<T>, unavailable: () => T) =>
    new Promise<T>((resolve, reject) => {
      const entry: Waiting = { since: performance.now(), refuse: () => resolve(unavailable()) };
      waiting.add(entry);
      timer ??= setInterval(sweep, SWEEP_MS);
      work.then((value) => {
        waiting.delete(entry);
        resolve(value);
      }, (err) => {
        waiting.delete(entry);
        reject(err);
      });
    });
}

/**
 * Bounded answers while the database is unreachable. A stopped database
 * fails fast (its errors map to 503 in the doors) and a new connection gives
 * up after CONNECT_TIMEOUT_SECONDS, but a query on a connection that stopped
 * carrying bytes (a network partition) would wait for ever. So a request
 * still running after OUTAGE_CHECK_MS asks the database watch whether the
 * database answers; if not, it is answered 503 at once (the work goes on in
 * the background and cannot be acknowledged any more). A slow request on a
 * healthy database (an AI reply) keeps waiting, checked again every
 * OUTAGE_CHECK_MS. Worst case: OUTAGE_CHECK_MS + a sweep + PROBE_TIMEOUT_MS.
 *
 * One sweep timer serves every request in flight, running only while some
 * are: a timer per request cost about 2 µs each (docs/BENCHMARKS.md).
 */

export const OUTAGE_CHECK_MS = 2_000;
const SWEEP_MS = 250;

export type OutageGuard = <T>(work: Promise<T>, unavailable: () => T) => Promise<T>;

interface Waiting {
  since: number;
  refuse(): void;
}

export function createOutageGuard(watch: { reachable(): Promise<boolean> }): OutageGuard {
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
    const now = performance.now();
    const due: Waiting[] = [];
    for (const w of waiting) {
      if (now - w.since < OUTAGE_CHECK_MS) break;
      due.push(w);
    }
    if (due.length === 0) return;
    probing = true;
    const ok = await watch.reachable();
    probing = false;
    for (const w of due) {
      if (!waiting.delete(w)) continue; // answered meanwhile
      if (ok) {
        w.since = performance.now();
        waiting.add(w);
      } else {
        w.refuse();
      }
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

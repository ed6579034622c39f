/**
 * Whether the database answers, learned in bounded time. A probe runs
 * `SELECT 1` on a connection of its own (so it never queues behind the
 * pool's busy or stalled connections) and gives up after PROBE_TIMEOUT_MS; a
 * probe connection that stalled is dropped, so the next probe starts afresh
 * and the watch recovers by itself. The embedded database runs in process
 * (it cannot become unreachable while the server runs), so there the probe
 * is the pool's own `SELECT 1`, bounded the same way.
 */
import postgres from "postgres";
import type { Sql } from "./client.ts";
import { createOutageGuard, type OutageGuard } from "./outage_guard.ts";

/** A probe that has not answered in this time counts as a failure: /readyz stays under 1 s. */
export const PROBE_TIMEOUT_MS = 500;
/** Event-loop lag during a probe above which its failure is not believed. */
const LAG_TOLERANCE_MS = 50;
const LAG_TICK_MS = 10;
/** A probe result is reused this long, so a burst of requests probes once. */
const PROBE_CACHE_MS = 500;

export interface DatabaseWatch {
  /** True when the database answered a probe within PROBE_TIMEOUT_MS. */
  reachable(): Promise<boolean>;
  /**
   * `work`'s result, or `unavailable()` as soon as the database is found
   * unreachable while `work` still runs (db/outage_guard.ts). The embedded
   * database runs in process and cannot stop answering: `work` as is.
   */
  guard: OutageGuard;
  close(): Promise<void>;
}

export function watchDatabase(db: { url: string | null; sql: Sql }): DatabaseWatch {
  let probeSql: Sql | null = null;
  let inFlight: Promise<boolean> | null = null;
  let last: { at: number; ok: boolean } | null = null;

  const client = (): Sql => {
    if (db.url === null) return db.sql;
    return probeSql ??= postgres(db.url, {
      max: 1,
      connect_timeout: PROBE_TIMEOUT_MS / 1000,
      idle_timeout: 60,
      onnotice: () => {},
    }) as unknown as Sql;
  };

  const probe = async (): Promise<boolean> => {
    const sql = client();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    // How late the event loop runs while the probe waits: a thread busy with
    // thousands of arriving requests reads the answer (or even completes the
    // probe's connection) after the timer has fired. Under 5,000 concurrent
    // widget streams every probe failed so, and every request got a 503
    // (docs/BENCHMARKS.md, issue 25). Lag does not count against the database.
    let lag = 0;
    let due = performance.now() + LAG_TICK_MS;
    const monitor = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - due);
      due = now + LAG_TICK_MS;
    }, LAG_TICK_MS);
    const answered = sql`SELECT 1`.then(() => true, () => false);
    let ok = await Promise.race([answered, timedOut]);
    clearTimeout(timer);
    lag = Math.max(lag, performance.now() - due);
    // No answer on a thread this busy is inconclusive, not an outage. The
    // guard asks again on its next sweep; once the load drains (requests
    // waiting on a dead database cost no CPU), the probe decides.
    if (!ok && lag > LAG_TOLERANCE_MS) ok = true;
    clearInterval(monitor);
    if (!ok && sql !== db.sql) {
      // A stalled probe connection would hold every later probe: start afresh.
      probeSql = null;
      sql.end({ timeout: 0 }).catch(() => {});
    }
    return ok;
  };

  const reachable = (): Promise<boolean> => {
    const now = performance.now();
    if (last && now - last.at < PROBE_CACHE_MS) return Promise.resolve(last.ok);
    return inFlight ??= probe().then((ok) => {
      last = { at: performance.now(), ok };
      inFlight = null;
      return ok;
    });
  };

  return {
    guard: db.url !== null ? createOutageGuard({ reachable }) : (work) => work,
    reachable,
    async close() {
      if (probeSql) await probeSql.end({ timeout: 1 }).catch(() => {});
      probeSql = null;
    },
  };
}

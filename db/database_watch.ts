/**
 * Whether the database answers, learned in bounded time. A probe runs
 * `SELECT 1` on a connection of its own (so it never queues behind the
 * pool's busy or stalled connections); a probe connection that stalled is
 * dropped, so the next probe starts afresh and the watch recovers by itself.
 * The embedded database runs in process (it cannot become unreachable while
 * the server runs), so there the probe is the pool's own `SELECT 1`.
 *
 * Only an answer counts as an answer: nothing is cached beyond the probe in
 * flight, and a probe started before the database went silent cannot be
 * answered after it, so `/readyz` is never 200 once a stall has lasted
 * PROBE_TIMEOUT_MS.
 *
 * A missing answer is judged by time the server's thread was free to read
 * it. Under 5,000 concurrent widget streams the thread was busy for 0.5 to
 * 3 s at a time and a wall-clock timer fired before an answer already
 * waiting was read, so every request got a 503 (docs/BENCHMARKS.md, issue
 * 25). Treating any such lag as "answered" instead made a real stall go
 * unnoticed on a merely busy server: requests waited for the whole stall and
 * `/readyz` said ready (issue 36). So a probe is silent only once
 * PROBE_TIMEOUT_MS have passed and the thread has then run on time for
 * SETTLE_MS (an answer already received has been read by then); a thread
 * that is never free that long gives an inconclusive verdict after
 * PROBE_GIVE_UP_MS.
 */
import postgres from "postgres";
import type { Sql } from "./client.ts";
import { createOutageGuard, OUTAGE_CHECK_MS, type OutageGuard, SWEEP_MS } from "./outage_guard.ts";

/** A probe without an answer in this time (on a free thread) is silent. */
export const PROBE_TIMEOUT_MS = 500;
/** Ticks of the lag monitor; one later than this plus the tolerance means a busy thread. */
const LAG_TICK_MS = 10;
const LAG_TOLERANCE_MS = 50;
/** How long the thread must have run on time before a missing answer counts. */
const SETTLE_MS = 100;
/**
 * The longest a request waits on a silent database before its 503, on a
 * free thread (docs/errors.md): the guard's delay, its next sweep, a probe.
 */
export const OUTAGE_ANSWER_BOUND_MS = OUTAGE_CHECK_MS + SWEEP_MS + PROBE_TIMEOUT_MS;
/** A thread never free for SETTLE_MS this long: the probe cannot tell (inconclusive). */
export const PROBE_GIVE_UP_MS = 5_000;

/**
 * `answered`: the database answered. `silent`: it refused, or gave no answer
 * while the thread was free to read one. `inconclusive`: the thread was too
 * busy to tell.
 */
export type ProbeVerdict = "answered" | "silent" | "inconclusive";

export interface DatabaseWatch {
  /** True only when the database answered a probe (for `/readyz`). */
  reachable(): Promise<boolean>;
  /** The verdict of the probe in flight, or of a new one. */
  probe(): Promise<ProbeVerdict>;
  /**
   * `work`'s result, or `unavailable()` as soon as a probe finds the database
   * silent while `work` still runs (db/outage_guard.ts). The embedded
   * database runs in process and cannot stop answering: `work` as is.
   */
  guard: OutageGuard;
  close(): Promise<void>;
}

export function watchDatabase(db: { url: string | null; sql: Sql }): DatabaseWatch {
  let probeSql: Sql | null = null;
  let inFlight: Promise<ProbeVerdict> | null = null;

  const client = (): Sql => {
    if (db.url === null) return db.sql;
    return probeSql ??= postgres(db.url, {
      max: 1,
      // The verdict is ours (below): postgres.js's own connect timer fires
      // late on a busy thread, before a connection already made is read.
      connect_timeout: PROBE_GIVE_UP_MS / 1000,
      idle_timeout: 60,
      onnotice: () => {},
    }) as unknown as Sql;
  };

  const runProbe = (): Promise<ProbeVerdict> =>
    new Promise((resolve) => {
      const sql = client();
      const started = performance.now();
      let lastTick = started;
      let freeSince = started;
      let done = false;
      const finish = (verdict: ProbeVerdict) => {
        if (done) return;
        done = true;
        clearInterval(monitor);
        if (verdict !== "answered" && sql !== db.sql) {
          // A stalled probe connection would hold every later probe: start afresh.
          if (probeSql === sql) probeSql = null;
          sql.end({ timeout: 0 }).catch(() => {});
        }
        resolve(verdict);
      };
      const monitor = setInterval(() => {
        const now = performance.now();
        if (now - lastTick > LAG_TICK_MS + LAG_TOLERANCE_MS) freeSince = now;
        lastTick = now;
        if (now - started >= PROBE_TIMEOUT_MS && now - freeSince >= SETTLE_MS) {
          finish("silent");
        } else if (now - started >= PROBE_GIVE_UP_MS) {
          finish("inconclusive");
        }
      }, LAG_TICK_MS);
      sql`SELECT 1`.then(() => finish("answered"), () => finish("silent"));
    });

  const probe = (): Promise<ProbeVerdict> =>
    inFlight ??= runProbe().finally(() => {
      inFlight = null;
    });

  return {
    guard: db.url !== null ? createOutageGuard({ probe }) : (work) => work,
    probe,
    reachable: async () => (await probe()) === "answered",
    async close() {
      if (probeSql) await probeSql.end({ timeout: 1 }).catch(() => {});
      probeSql = null;
    },
  };
}

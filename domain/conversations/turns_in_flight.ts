/**
 * Visitor turns this server has started storing and not yet stored. A reply
 * is drafted before its turn is stored (reply_draft.ts `mayDraftEarly`) to
 * hide the commit behind the provider's wait; that is only worth it while
 * the turn's statement runs at once. Under a burst, turns queue on the
 * database's few connections for seconds, and a provider call started for
 * each held its connection, its buffers and its early answer in memory for
 * the whole wait, and took the CPU the commits needed: 5,000 first messages
 * at once peaked 121 KB per stream above idle with every draft early, 96 KB
 * with none, and their first delta came later, not sooner
 * (docs/BENCHMARKS.md, issue 25, item 3).
 */
import type { AppDeps } from "../deps.ts";

export interface TurnsInFlight {
  /** Turns being stored on this server now. */
  readonly waiting: number;
  /** Count `storing` as waiting until it settles; returns it. */
  track<T>(storing: Promise<T>): Promise<T>;
}

/** One count per server (each test server has its own deps). */
const byServer = new WeakMap<object, TurnsInFlight>();

export function turnsInFlight(deps: Pick<AppDeps, "sql">): TurnsInFlight {
  let counter = byServer.get(deps.sql);
  if (!counter) {
    let waiting = 0;
    const leave = () => {
      waiting--;
    };
    counter = {
      get waiting() {
        return waiting;
      },
      track(storing) {
        waiting++;
        storing.then(leave, leave);
        return storing;
      },
    };
    byServer.set(deps.sql, counter);
  }
  return counter;
}

/**
 * How many CSV exports one instance streams at once, and when their batches
 * may run. A batch holds the server's own thread while its rows are parsed
 * and written out, and embedded, where PGlite is one connection on that same
 * thread, while the statement runs too: every other statement, and every
 * request, waits. Eight exports' batches queued back to back kept requests
 * waiting a second each (issue 36). So the batches of all exports take turns
 * on one lane, one at a time, and each waits until
 *
 * - no request has been in hand (app/traffic.ts, as for webhook deliveries
 *   and jobs) for `settleMs`: a client's next request often follows its last
 *   one closely, and a batch started in between would sit in front of it;
 * - and, while requests come (one answered within `recentMs`), the lane has
 *   rested `restFactor` times as long as its last batch took: the exports then
 *   use at most a third of the time, so most requests meet no batch at all;
 *
 * but never longer than `maxWaitMs`, so an export always progresses. With no
 * traffic, batches run back to back.
 */
import type { Traffic } from "../deps.ts";

/**
 * Exports one instance streams at once. Two let a second owner's export start
 * while another runs; more would only share the same lane, each slower, with
 * more downloads held open.
 */
export const EXPORTS_PER_INSTANCE = 2;

export interface ExportPacing {
  settleMs: number;
  recentMs: number;
  restFactor: number;
  maxWaitMs: number;
}

/** Under unbroken traffic an export still reads a batch every 100 ms. */
export const EXPORT_PACING: ExportPacing = {
  settleMs: 5,
  recentMs: 1000,
  restFactor: 2,
  maxWaitMs: 100,
};

/** One export's hold on the gate, from before its first byte to its end. */
export interface ExportTicket {
  /** Runs one batch (its statement, its rows made CSV) when its turn comes. */
  batch<T>(run: () => Promise<T>): Promise<T>;
  /** Gives the slot back; later calls do nothing. */
  leave(): void;
}

export interface ExportGate {
  /** The most exports streaming at once on this instance. */
  readonly limit: number;
  /** A slot for one more export, or null when `limit` are streaming. */
  enter(): ExportTicket | null;
}

export interface ExportGateOptions {
  limit: number;
  /** The requests in hand, which batches give way to. */
  traffic: Traffic;
  pacing: ExportPacing;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The lane's last batch: when it ended and how long it took (performance.now() ms). */
interface LastBatch {
  end: number;
  ms: number;
}

/** Resolves when the next batch may run (see the module's comment). */
async function turn(traffic: Traffic, p: ExportPacing, last: LastBatch): Promise<void> {
  const deadline = performance.now() + p.maxWaitMs;
  // A request that arrived while the last batch held the thread is not counted
  // until the server has read it: give it that moment first.
  await sleep(1);
  for (;;) {
    const now = performance.now();
    if (now >= deadline) return;
    const busy = traffic.quiet(deadline - now);
    if (busy) {
      await busy;
      continue;
    }
    const idle = traffic.idleMs();
    const restUntil = idle < p.recentMs ? last.end + last.ms * p.restFactor : 0;
    const wait = Math.max(p.settleMs - idle, restUntil - now);
    if (wait <= 0) return;
    await sleep(Math.min(wait, deadline - now));
  }
}

export function createExportGate(opts: ExportGateOptions): ExportGate {
  let streaming = 0;
  // The lane: each batch chains on the previous one, so batches run in turn.
  let lane: Promise<unknown> = Promise.resolve();
  const last: LastBatch = { end: 0, ms: 0 };
  const { traffic, pacing } = opts;
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const mine = lane.then(async () => {
      await turn(traffic, pacing, last);
      const start = performance.now();
      try {
        return await run();
      } finally {
        last.end = performance.now();
        last.ms = last.end - start;
      }
    });
    lane = mine.catch(() => {});
    return mine;
  };
  return {
    limit: opts.limit,
    enter() {
      if (streaming >= opts.limit) return null;
      streaming++;
      let held = true;
      return {
        batch: inTurn,
        leave() {
          if (!held) return;
          held = false;
          streaming--;
        },
      };
    },
  };
}

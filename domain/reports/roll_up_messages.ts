/**
 * The report's message rollup (docs/reports.md "How figures stay exact"):
 * rounds of db/report_rollup.ts until the watermark has caught up with the
 * messages written so far, each round one short transaction over at most
 * `idsPerRound` message ids, so a backfill from watermark 0 (an upgrade over
 * millions of messages) proceeds in bounded steps. Nothing here is on the
 * visitor's path: the writers of messages never touch the rollup.
 */
import type { Sql } from "../../db/client.ts";
import { rollUpRound } from "../../db/report_rollup.ts";

export interface RollupProgress {
  rounds: number;
  /** Message ids rolled up (the watermark's move). */
  rolled: number;
  watermark: number;
  /** Whether every message id handed out when the last round ran is rolled up. */
  caughtUp: boolean;
}

export interface RollupOptions {
  /** No other transaction can be open meanwhile (the embedded database's one connection). */
  alone: boolean;
  idsPerRound: number;
  maxRounds: number;
  /** Asked before each round: false stops (shutdown, no quiet moment). */
  keepGoing?: () => Promise<boolean>;
}

export async function rollUpMessages(sql: Sql, o: RollupOptions): Promise<RollupProgress> {
  const progress: RollupProgress = { rounds: 0, rolled: 0, watermark: 0, caughtUp: false };
  while (progress.rounds < o.maxRounds) {
    if (o.keepGoing && !await o.keepGoing()) break;
    const r = await rollUpRound(sql, o.idsPerRound, o.alone);
    progress.rounds++;
    progress.rolled += r.to - r.from;
    progress.watermark = r.to;
    progress.caughtUp = r.to >= r.lastId;
    // Caught up, or waiting for writers still open when the sequence was read: next tick.
    if (progress.caughtUp || r.to === r.from && progress.rounds > 1) break;
  }
  return progress;
}

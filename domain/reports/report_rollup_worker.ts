/**
 * Rolls the report's message counts up (roll_up_messages.ts) every
 * REPORT_ROLLUP_SECONDS across all instances: every instance ticks and the
 * one that takes the Kv lock runs the rounds (domain/jobs/periodic_worker.ts).
 * On the embedded database's one connection every request waits behind a
 * round, so rounds are smaller there and each waits for a quiet moment first.
 * 0 turns the job off: the report then counts the messages above the
 * watermark itself (exact, only slower).
 */
import type { AppDeps, Worker } from "../deps.ts";
import { startPeriodicWorker } from "../jobs/periodic_worker.ts";
import { rollUpMessages } from "./roll_up_messages.ts";

/** Message ids per round (one transaction): PostgreSQL, and the embedded database. */
const IDS_PER_ROUND = 50_000;
const EMBEDDED_IDS_PER_ROUND = 5_000;
/** Rounds per tick at most: a backfill goes on at the next tick. */
const MAX_ROUNDS = 100;

export function startReportRollupWorker(deps: AppDeps): Worker {
  const seconds = deps.config.reportRollupSeconds;
  if (seconds === 0) return { name: "report-rollup", stop: () => Promise.resolve() };
  const embedded = deps.db.embedded;
  return startPeriodicWorker(deps, {
    name: "report-rollup",
    lock: "report-rollup:run",
    intervalSeconds: seconds,
    async run(keepGoing) {
      const done = await rollUpMessages(deps.sql, {
        alone: embedded,
        idsPerRound: embedded ? EMBEDDED_IDS_PER_ROUND : IDS_PER_ROUND,
        maxRounds: MAX_ROUNDS,
        keepGoing,
      });
      if (done.rolled > 0) deps.log.debug("report messages rolled up", { ...done });
    },
  });
}

/**
 * Rolls the report's message counts up (roll_up_messages.ts) every
 * REPORT_ROLLUP_SECONDS across all instances: every instance ticks and the
 * one that takes the Kv lock runs the rounds. On the embedded database's one
 * connection every request waits behind a round, so rounds are smaller there
 * and each waits for a quiet moment first, as retention and the table
 * maintenance do. 0 turns the job off: the report then counts the messages
 * above the watermark itself (exact, only slower).
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import { rollUpMessages } from "./roll_up_messages.ts";

const LOCK = "report-rollup:run";
const QUIET_MAX_WAIT_MS = 2000;
/** Message ids per round (one transaction): PostgreSQL, and the embedded database. */
const IDS_PER_ROUND = 50_000;
const EMBEDDED_IDS_PER_ROUND = 5_000;
/** Rounds per tick at most: a backfill goes on at the next tick. */
const MAX_ROUNDS = 100;

export function startReportRollupWorker(deps: AppDeps): Worker {
  const seconds = deps.config.reportRollupSeconds;
  if (seconds === 0) return { name: "report-rollup", stop: () => Promise.resolve() };
  const intervalMs = seconds * 1000;
  const owner = crypto.randomUUID();
  let stopping = false;
  let running: Promise<void> | null = null;

  const tick = async () => {
    const lockMs = Math.max(500, intervalMs - 200);
    if (!(await deps.kv.acquire(LOCK, lockMs, owner).catch(() => false))) return;
    const embedded = deps.db.embedded;
    const done = await rollUpMessages(deps.sql, {
      alone: embedded,
      idsPerRound: embedded ? EMBEDDED_IDS_PER_ROUND : IDS_PER_ROUND,
      maxRounds: MAX_ROUNDS,
      keepGoing: async () => {
        if (embedded) await deps.traffic.quiet(QUIET_MAX_WAIT_MS);
        return !stopping && await deps.kv.renew(LOCK, owner, lockMs).catch(() => false);
      },
    });
    if (done.rolled > 0) {
      deps.log.debug("report messages rolled up", { ...done });
    }
  };
  const timer = setInterval(() => {
    running ??= tick()
      .catch((err) => deps.log.warn("report rollup failed", describeError(err)))
      .finally(() => running = null);
  }, intervalMs);
  return {
    name: "report-rollup",
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Bounded answers while the database is unreachable. A stopped database
 * fails fast (its errors map to 503 in the doors) and a new connection gives
 * up after CONNECT_TIMEOUT_SECONDS, but a query on a connection that stopped
 * carrying bytes (a network partition) would wait for ever. So a request
 * still running after OUTAGE_CHECK_MS asks the database watch whether the
 * database answers; if not, it is answered 503 at once (the work goes on in
 * the background and cannot be acknowledged any more). A slow request on a
 * healthy database (an AI reply) keeps waiting, checked again every
 * OUTAGE_CHECK_MS. Worst case: OUTAGE_CHECK_MS + PROBE_TIMEOUT_MS.
 */
import type { DatabaseWatch } from "../db/database_watch.ts";

export const OUTAGE_CHECK_MS = 2_000;

/** `work`'s result, or `unavailable()` once the database is found unreachable first. */
export function answerWithinOutage<T>(
  watch: DatabaseWatch,
  work: Promise<T>,
  unavailable: () => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer = setTimeout(check, OUTAGE_CHECK_MS);
    work.then((value) => {
      settled = true;
      clearTimeout(timer);
      resolve(value);
    }, (err) => {
      settled = true;
      clearTimeout(timer);
      reject(err);
    });
    async function check() {
      const ok = await watch.reachable();
      if (settled) return;
      if (!ok) {
        settled = true;
        resolve(unavailable());
        return;
      }
      timer = setTimeout(check, OUTAGE_CHECK_MS);
    }
  });
}

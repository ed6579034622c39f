/** Knowledge retrieval's time (/metrics) and its span in the reply's trace. */
import { inSpan, tracingOn } from "./tracing.ts";
import { metricsEnabled, recordRetrieval } from "./metrics.ts";

export function observeRetrieval<T>(search: () => Promise<T>): Promise<T> {
  if (!tracingOn && !metricsEnabled()) return search();
  return inSpan("retrieval", {}, async () => {
    const started = performance.now();
    try {
      return await search();
    } finally {
      recordRetrieval((performance.now() - started) / 1000);
    }
  });
}

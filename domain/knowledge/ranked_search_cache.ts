/**
 * Full-text search results kept per bot and knowledge generation. The ranked
 * search is the heaviest statement before a reply's first token (about 6 ms
 * of planning and execution on a 4-chunk bot, docs/BENCHMARKS.md), and
 * visitors ask the same questions again and again. A result is reused only
 * under the generation it was computed for: the bot lookup reads the current
 * one in its own round trip (db/chatbots.ts), and triggers give the bot a new
 * one with every write to its chunks or sources (migration 0110), so a
 * reused result is the one the database would return, on every instance.
 *
 * Concurrent identical searches share one statement (the promise is cached);
 * a failed one is forgotten. Bounded by entries and by the text it holds.
 * Callers must treat a result as read-only: it is shared.
 */
import type { RankedSearch } from "../../db/knowledge.ts";

/** Most results kept; the least recently used leave first. */
const MAX_ENTRIES = 2_000;
/** Most characters of chunk text kept over all results (about 16 MB of strings). */
const MAX_CHARS = 8_000_000;

interface Entry {
  result: Promise<RankedSearch>;
  chars: number;
}

class RankedSearchCache {
  #entries = new Map<string, Entry>();
  #chars = 0;

  get(key: string, search: () => Promise<RankedSearch>): Promise<RankedSearch> {
    const hit = this.#entries.get(key);
    if (hit) {
      // Map order is recency: move the entry to the end.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.result;
    }
    const entry: Entry = { result: search(), chars: 0 };
    this.#entries.set(key, entry);
    entry.result.then((found) => {
      if (this.#entries.get(key) !== entry) return;
      entry.chars = [...found.hits, ...found.near]
        .reduce((n, h) => n + h.content.length + h.title.length, 0);
      this.#chars += entry.chars;
      this.#trim();
    }, () => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    this.#trim();
    return entry.result;
  }

  #trim(): void {
    while (this.#entries.size > MAX_ENTRIES || this.#chars > MAX_CHARS) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
  }
}

/** One cache per database client: two databases in one process never share results. */
const caches = new WeakMap<object, RankedSearchCache>();

/**
 * The ranked search for `params` under `generation`, from the cache or from
 * `search`. Without a generation (a caller that did not read it) it always searches.
 */
export function cachedRankedSearch(
  database: object,
  generation: number | null | undefined,
  params: unknown,
  search: () => Promise<RankedSearch>,
): Promise<RankedSearch> {
  if (generation === null || generation === undefined) return search();
  let cache = caches.get(database);
  if (!cache) caches.set(database, cache = new RankedSearchCache());
  return cache.get(`${generation}\u0000${JSON.stringify(params)}`, search);
}

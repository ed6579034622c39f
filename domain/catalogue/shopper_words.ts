/**
 * Other forms of a shopper's words for the catalogue search: the singular of
 * an irregular plural the stemmer leaves apart ("knives" and "knife", "feet"
 * and "foot"), and, for a word the catalogue may not know, the catalogue's
 * own words within a small edit distance ("helmits" → "helmet", "bycicle" →
 * "bicycle"), and the noun of an adjective in -y the catalogue uses ("rainy"
 * → "rain", "icy" → "ice"). The search (db/catalogue.ts) uses a correction only when the
 * word as written is known neither to the catalogue nor to the bot's
 * knowledge, so a product name, however unusual, is never corrected away and
 * a help-centre word is never turned into a product.
 */
import { catalogueVocabulary } from "../../db/catalogue.ts";
import type { Executor } from "../../db/client.ts";
import { compoundCatalogueWords, RELATED_WEIGHT, relatedCatalogueWords } from "./related_words.ts";

export interface WordAlternative {
  /** The question word. */
  of: string;
  alt: string;
  /** true: always searched (a plural); false: only if `of` is unknown (a correction). */
  always: boolean;
  /** What it counts against `of` (a related word, related_words.ts: less); 1 when absent. */
  share?: number;
}

/** Words that say a shopper wants something, not what: no related words are looked up. */
const GENERIC = new Set([
  "something",
  "anything",
  "thing",
  "things",
  "stuff",
  "need",
  "needs",
  "want",
  "wants",
  "looking",
  "help",
  "helps",
  "get",
  "buy",
  "good",
  "best",
  "recommend",
  "suggest",
  "idea",
  "ideas",
  "have",
  "sell",
  "any",
]);

/** English irregular plurals whose stems differ from their singular's. */
const IRREGULAR: Record<string, string> = {
  feet: "foot",
  teeth: "tooth",
  geese: "goose",
  mice: "mouse",
  children: "child",
  men: "man",
  women: "woman",
  people: "person",
  knives: "knife",
  wives: "wife",
  lives: "life",
  leaves: "leaf",
  loaves: "loaf",
  halves: "half",
  shelves: "shelf",
  scarves: "scarf",
  wolves: "wolf",
  calves: "calf",
  thieves: "thief",
  hooves: "hoof",
  oxen: "ox",
  cacti: "cactus",
  styli: "stylus",
  fungi: "fungus",
  radii: "radius",
  elves: "elf",
  dwarves: "dwarf",
  dice: "die",
  indices: "index",
  matrices: "matrix",
  vertices: "vertex",
  analyses: "analysis",
  crises: "crisis",
};

/** An irregular singular's plural (the stems differ too). */
const PLURAL_OF = new Map(
  Object.entries(IRREGULAR).map(([plural, singular]) => [singular, plural]),
);

/** Shortest word corrected, and the edit distance allowed from these lengths on. */
const ONE_EDIT_FROM = 5;
const TWO_EDITS_FROM = 7;
/** Corrections offered per word at most (the closest, then the commonest). */
const MAX_CORRECTIONS = 2;
/** Vocabularies kept (one per workspace with a catalogue), least recently used out. */
const MAX_CACHED = 200;

interface Vocabulary {
  version: string;
  /** Catalogue words by first letter, with how many products hold each. */
  byInitial: Map<string, { word: string; df: number }[]>;
  known: Set<string>;
  /** How many products hold each word. */
  counts: Map<string, number>;
}

const cache = new Map<number, Vocabulary>();

/** The cached vocabulary's version, to compare with the search's (a sync replaces it). */
export function vocabularyVersion(workspaceId: number): string | null {
  return cache.get(workspaceId)?.version ?? null;
}

export function forgetVocabulary(workspaceId: number): void {
  cache.delete(workspaceId);
}

async function vocabulary(sql: Executor, workspaceId: number): Promise<Vocabulary> {
  const hit = cache.get(workspaceId);
  if (hit) {
    cache.delete(workspaceId);
    cache.set(workspaceId, hit);
    return hit;
  }
  const { version, words } = await catalogueVocabulary(sql, workspaceId);
  const byInitial = new Map<string, { word: string; df: number }[]>();
  for (const w of words) {
    const initial = w.word[0]!;
    const list = byInitial.get(initial) ?? [];
    list.push(w);
    byInitial.set(initial, list);
  }
  const counts = new Map(words.map((w) => [w.word, w.df]));
  const vocab = { version, byInitial, known: new Set(counts.keys()), counts };
  cache.set(workspaceId, vocab);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return vocab;
}

/**
 * The other forms worth searching for `words`. Reads the workspace's
 * vocabulary once per catalogue sync (cached); the caller compares the
 * search's version with `vocabularyVersion` and forgets a stale one.
 */
export async function shopperAlternatives(
  sql: Executor,
  workspaceId: number,
  words: string[],
): Promise<{ alternatives: WordAlternative[]; unsure: string[] }> {
  const out: WordAlternative[] = [];
  for (const w of words) {
    const singular = IRREGULAR[w];
    if (singular) out.push({ of: w, alt: singular, always: true });
  }
  const plain = words.filter((w) => w.length >= 3 && !IRREGULAR[w] && /^\p{L}+$/u.test(w));
  const unsure = plain.filter((w) => w.length >= ONE_EDIT_FROM);
  const adjectives = words.filter((w) => /^\p{L}{3,}y$/u.test(w) && !IRREGULAR[w]);
  if (!plain.length && !adjectives.length) return { alternatives: out, unsure: [] };
  const vocab = await vocabulary(sql, workspaceId);
  // An adjective made with -y ("rainy", "muddy", "icy") searches its noun where products use it.
  for (const w of adjectives) {
    const stem = w.slice(0, -1);
    const nouns = [stem, `${stem}e`, /(\p{L})\1$/u.test(stem) ? stem.slice(0, -1) : ""];
    for (const noun of nouns) {
      if (noun.length >= 3 && vocab.known.has(noun)) out.push({ of: w, alt: noun, always: true });
    }
  }
  // And the other way, where the catalogue uses the plural: "leaf rake" finds "fallen leaves".
  for (const w of plain) {
    const plural = PLURAL_OF.get(w);
    if (plural && vocab.known.has(plural)) out.push({ of: w, alt: plural, always: true });
  }
  const derived = new Set(out.filter((a) => a.always).map((a) => a.of));
  // The words a shopper asks with ("looking", "need") are spelt right: "looking" is not "locking".
  const unknown = unsure.filter((w) => !vocab.known.has(w) && !derived.has(w) && !GENERIC.has(w));
  for (const w of unknown) {
    // A misspelt plural ("helmts") is compared as its singular too: catalogues name things once.
    const forms = w.length > ONE_EDIT_FROM && w.endsWith("s") ? [w, w.slice(0, -1)] : [w];
    let best: { word: string; df: number; d: number }[] = [];
    for (const form of forms) {
      const limit = form.length >= TWO_EDITS_FROM ? 2 : 1;
      for (const c of vocab.byInitial.get(form[0]!) ?? []) {
        if (Math.abs(c.word.length - form.length) > limit || c.word.length < ONE_EDIT_FROM - 1) {
          continue;
        }
        const d = editDistance(form, c.word, limit);
        if (d > limit || best.some((b) => b.word === c.word)) continue;
        if (!best.length || d < best[0]!.d) best = [{ ...c, d }];
        else if (d === best[0]!.d) best.push({ ...c, d });
      }
    }
    best.sort((a, b) => b.df - a.df || a.word.localeCompare(b.word));
    for (const c of best.slice(0, MAX_CORRECTIONS)) out.push({ of: w, alt: c.word, always: false });
  }
  // A need in plain words: the catalogue's words related to one it does not use.
  const unrelated = plain.filter((w) => !vocab.known.has(w) && !derived.has(w) && !GENERIC.has(w));
  const related: string[] = [];
  for (const w of unrelated) {
    // A compound the catalogue uses ("rain" → "raincoat") is as close as a synonym.
    const alts = [
      ...new Set([
        ...compoundCatalogueWords(w, vocab.counts),
        ...relatedCatalogueWords(w, vocab.known),
      ]),
    ];
    for (const alt of alts) out.push({ of: w, alt, always: false, share: RELATED_WEIGHT });
    if (alts.length && !unknown.includes(w)) related.push(w);
  }
  return { alternatives: out, unsure: [...unknown, ...related] };
}

/**
 * Whether `lexeme` (the bot's knowledge) is what a shopper meant by `word`:
 * one edit, the same first letter ("refnd", "repiar"); stricter than a
 * catalogue correction, as a real word near a help-centre word ("present",
 * "prevent") must not turn a shopper away.
 */
export function nearEnough(word: string, lexeme: string): boolean {
  if (word[0] !== lexeme[0] || word.length < ONE_EDIT_FROM) return false;
  return editDistance(word, lexeme, 1) <= 1;
}

/** Optimal string alignment distance (a swap of neighbours is one edit), stopping past `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Related words for a shopper's need said in plain words (issue 42): "see in
 * the dark" shares no word with "800 lumen front light", "protect my couch"
 * none with "a throw that keeps hair off the sofa". For a question word the
 * catalogue does not use, the words WordNet relates to it
 * (domain/knowledge/thesaurus.ts: synonyms, derived forms, broader terms) that
 * the catalogue does use are searched in its place, at a lower weight than a
 * word as written. The search (db/catalogue.ts) uses them only when the word
 * as written is known neither to the catalogue nor to the bot's knowledge, as
 * it does a correction: a help-centre word never turns into a product.
 */
import { wordRelations } from "../knowledge/thesaurus.ts";

/** What a related word counts against the word it stands in for. */
export const RELATED_WEIGHT = 0.5;
/** Related catalogue words searched per question word at most (WordNet's closest first). */
const MAX_PER_WORD = 2;
/** Endings a catalogue word may carry beyond WordNet's base form ("pull" in "pulling"). */
const ENDINGS = ["", "s", "es", "ing", "ed", "er", "ers", "d"];

/**
 * The catalogue's words WordNet relates to `word` (not the word itself),
 * closest first. (Relating the catalogue's words back to the question's was
 * tried: 180 ms per 233 catalogue words on a sync's first question.)
 */
export function relatedCatalogueWords(word: string, known: Set<string>): string[] {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return [];
  const out: string[] = [];
  for (const r of wordRelations(word).related) {
    if (r !== word && ENDINGS.some((e) => known.has(r + e))) out.push(r);
  }
  return out.slice(0, MAX_PER_WORD);
}

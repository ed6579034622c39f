/**
 * A thesaurus for the words a bot's knowledge never uses. A visitor writes
 * "room" where the help centre says "space", "die" where it says "death",
 * "spanish" where it says "languages"; full-text search shares no word with
 * such a question. For a question word the bot's vocabulary lacks, retrieval
 * searches the words WordNet relates to it instead (its synonyms in its
 * commonest senses, their derived forms, and for nouns and verbs the broader
 * term), at a lower weight than a word the visitor wrote. A word WordNet knows
 * is also a correctly spelled word, so it is not "corrected" by trigram
 * similarity into some unrelated word of the knowledge ("spanish" into "spam").
 *
 * Data: WordNet 3.1, read by wordnet_files.ts.
 */
import {
  type Database,
  findLemma,
  open,
  POS,
  type Pos,
  readSynset,
  type Synset,
} from "./wordnet_files.ts";

export type { Pos, Synset };

/** Senses looked at per part of speech: WordNet lists the commonest first. */
const SENSES = 3;
/** Related words returned per question word, the closest first. */
const MAX_RELATED = 16;
/** Words taken from each group (a synset's synonyms, its derived forms, its broader terms). */
const PER_GROUP = 6;
const CACHE_SIZE = 5_000;
/** Derivationally related form, pertainym, similar adjective, attribute ("big" is a size). */
const DERIVED = new Set(["+", "\\", "&", "="]);
/** Hypernym, instance hypernym. */
const BROADER = new Set(["@", "@i"]);

/** WordNet's suffix rules (its "morphy"): the base forms a word may be an inflection of. */
const SUFFIXES: Record<Pos, [string, string][]> = {
  noun: rules("s>", "ses>s", "xes>x", "zes>z", "ches>ch", "shes>sh", "men>man", "ies>y"),
  verb: rules("s>", "ies>y", "es>e", "es>", "ed>e", "ed>", "ing>e", "ing>"),
  adj: rules("er>", "est>", "er>e", "est>e"),
  adv: [],
};

/** "ies>y": strip "ies", add "y". */
function rules(...specs: string[]): [string, string][] {
  return specs.map((spec) => spec.split(">") as [string, string]);
}

export interface WordRelations {
  /** Whether WordNet knows the word (in any inflection): a real word, not a typo. */
  known: boolean;
  /** Related single words, closest first (synonyms, derived forms, broader terms). */
  related: string[];
}

/** Why the database files could not be read: retrieval then goes on without a thesaurus. */
let unavailable: string | null = null;
const cache = new Map<string, WordRelations>();
/** Synsets read for callers that walk relations (synsetAt), by part of speech and offset. */
const synsets = new Map<string, Synset>();
const SYNSET_CACHE_SIZE = 20_000;
const NOTHING: WordRelations = { known: false, related: [] };

/**
 * Reads the index files now rather than on the first question (about 40 ms);
 * the reason when the files cannot be read, else null.
 */
export function warmThesaurus(): string | null {
  wordRelations("warm");
  return unavailable;
}

/** What WordNet says of one lower-case word; unknown when the word is not plain letters. */
export function wordRelations(word: string): WordRelations {
  const hit = cache.get(word);
  if (hit) return hit;
  if (unavailable || !/^[a-z][a-z'-]*[a-z]$/.test(word)) return NOTHING;
  let result: WordRelations;
  try {
    result = lookUp(word);
  } catch (err) {
    unavailable = String(err);
    return NOTHING;
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(word, result);
  return result;
}

/** A word under one part of speech: its base form, its senses' synsets (commonest first). */
export interface WordEntry {
  pos: Pos;
  base: string;
  offsets: number[];
  tagged: number;
}

/**
 * Every part of speech `word` (or a base form of it) has, the one most often
 * seen in WordNet's tagged texts first: "die" is a verb before a noun. For
 * callers that walk relations of their own (the catalogue's, related_words.ts);
 * none when the files cannot be read.
 */
export function wordEntries(word: string): WordEntry[] {
  if (unavailable || !/^[a-z][a-z'-]*[a-z]$/.test(word)) return [];
  try {
    return entriesOf(open(), word);
  } catch (err) {
    unavailable = String(err);
    return [];
  }
}

/** The synset at `offset` of `pos`'s data file (from a WordEntry or a pointer). */
export function synsetAt(pos: Pos, offset: number): Synset {
  const key = `${pos}${offset}`;
  const hit = synsets.get(key);
  if (hit) return hit;
  const synset = readSynset(open(), pos, offset);
  if (synsets.size >= SYNSET_CACHE_SIZE) synsets.delete(synsets.keys().next().value!);
  synsets.set(key, synset);
  return synset;
}

/** How many senses a lemma has, all parts of speech together: how ambiguous it is. */
export function senseCount(lemma: string): number {
  if (unavailable) return 0;
  const db = open();
  let n = 0;
  for (const pos of POS) n += findLemma(db.index[pos], lemma)?.offsets.length ?? 0;
  return n;
}

/**
 * Which of `lemma`'s senses under `pos` the synset at `offset` is (0: its
 * commonest), or -1 when it is not one of them.
 */
export function senseRank(lemma: string, pos: Pos, offset: number): number {
  if (unavailable) return -1;
  return findLemma(open().index[pos], lemma)?.offsets.indexOf(offset) ?? -1;
}

function entriesOf(db: Database, word: string): WordEntry[] {
  const entries: WordEntry[] = [];
  for (const pos of POS) {
    for (const base of baseForms(word, pos)) {
      const entry = findLemma(db.index[pos], base);
      if (entry) entries.push({ pos, base, ...entry });
    }
  }
  return entries.sort((a, b) => b.tagged - a.tagged);
}

function lookUp(word: string): WordRelations {
  const db = open();
  const entries = entriesOf(db, word);
  if (!entries.length) return NOTHING;
  // Sense by sense, the commonest first: its synonyms, the forms derived from
  // them ("die" gives "death"), then the broader term ("spanish" is a language).
  const candidates: string[] = entries.map((e) => e.base);
  for (let sense = 0; sense < SENSES; sense++) {
    for (const { pos, offsets } of entries) {
      if (sense >= offsets.length) continue;
      const synset = readSynset(db, pos, offsets[sense]!);
      candidates.push(...headWords(synset.words, pos).slice(0, PER_GROUP));
      // Only the synsets whose words can be used are read: a common verb points to dozens.
      const derived = pointed(synset, DERIVED).flatMap((p) => {
        const target = readSynset(db, p.pos, p.offset);
        return headWords(p.target > 0 ? [target.words[p.target - 1]!] : target.words, p.pos);
      });
      candidates.push(...derived.slice(0, PER_GROUP));
      if (pos === "noun" || pos === "verb") {
        const broader = pointed(synset, BROADER)
          .flatMap((p) => headWords(readSynset(db, p.pos, p.offset).words, p.pos));
        candidates.push(...broader.slice(0, PER_GROUP));
      }
    }
  }
  const related: string[] = [];
  const seen = new Set([word]);
  for (const w of candidates) {
    if (w.length < 3 || seen.has(w) || !/^[a-z]+$/.test(w)) continue;
    seen.add(w);
    related.push(w);
  }
  return { known: true, related: related.slice(0, MAX_RELATED) };
}

/** The first PER_GROUP pointers of the given kinds. */
function pointed(synset: Synset, symbols: Set<string>): Synset["pointers"] {
  return synset.pointers.filter((p) => symbols.has(p.symbol)).slice(0, PER_GROUP);
}

/**
 * One searchable word per lemma: a compound noun by its last word
 * ("romance_language" is a language), a phrasal verb by its first ("pass_away"
 * is passing); compound adjectives and adverbs are left out.
 */
export function headWords(lemmas: string[], pos: Pos): string[] {
  const out: string[] = [];
  for (const lemma of lemmas) {
    const parts = lemma.toLowerCase().split(/[_-]+/);
    if (parts.length === 1) out.push(parts[0]!);
    else if (pos === "noun") out.push(parts.at(-1)!);
    else if (pos === "verb") out.push(parts[0]!);
  }
  return out;
}

function baseForms(word: string, pos: Pos): string[] {
  const forms = [word];
  for (const [suffix, ending] of SUFFIXES[pos]) {
    if (word.endsWith(suffix) && word.length > suffix.length + 1) {
      forms.push(word.slice(0, -suffix.length) + ending);
    }
  }
  return forms;
}

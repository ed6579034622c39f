/**
 * Related words for a shopper's need said in plain words (issue 42): "protect
 * my couch" shares no word with "gives claws somewhere better to go than your
 * furniture", "my dog eats too fast" none with "slow feeder bowl". For a
 * question word the catalogue does not use, the words WordNet relates to it
 * (domain/knowledge/thesaurus.ts) that the catalogue does use are searched in
 * its place, at a lower weight than a word as written. The search
 * (db/catalogue.ts) uses them only when the word as written is known neither
 * to the catalogue nor to the bot's knowledge, as it does a correction: a
 * help-centre word never turns into a product.
 *
 * The relations are the catalogue's, not the knowledge retrieval's: besides
 * the synonyms and derived forms of the word's commonest senses, the broader
 * terms two steps up ("couch" is a seat, a seat is furniture) and the
 * narrower ones (a kind's kinds), since a shop names things by kind.
 * A related word is searched only in the sense a shop would use it in: it
 * was reached through its own commonest sense ("hammock" is also a small hill,
 * but a shop's hammock is the bed), and it is nearly unambiguous (at most
 * MAX_SENSES senses): a catalogue uses an ambiguous word in its own sense,
 * rarely the one WordNet reached ("dark" gives "light", which an outdoor shop
 * uses as "not heavy"; "couch" gives "seat", which a pet shop uses for a car's).
 */
import {
  headWords,
  type Pos,
  senseCount,
  senseRank,
  type Synset,
  synsetAt,
  wordEntries,
} from "../knowledge/thesaurus.ts";

/** What a related word counts against the word it stands in for. */
export const RELATED_WEIGHT = 0.5;
/** Related catalogue words searched per question word at most (the closest first). */
const MAX_PER_WORD = 3;
/** Endings a catalogue word may carry beyond WordNet's base form ("pull" in "pulling"). */
const ENDINGS = ["", "s", "es", "ing", "ed", "er", "ers", "d"];
/** Senses looked at per part of speech: WordNet lists the commonest first. */
const SENSES = 3;
/** Words taken from each group (synonyms, derived forms, broader terms) of a sense. */
const PER_GROUP = 6;
/** Narrower terms taken per sense (a kind has many: "footwear" covers boots, clogs, …). */
const NARROWER = 12;
/** A related word with more senses than this is too ambiguous to stand in for another. */
const MAX_SENSES = 8;
const CACHE_SIZE = 5_000;
/** Letters two words share at their start to be one root ("pack" and "packable"). */
const ROOT = 4;
/** Derivationally related form, pertainym, similar adjective, attribute. */
const DERIVED = new Set(["+", "\\", "&", "="]);
/** Hypernym, instance hypernym. */
const BROADER = new Set(["@", "@i"]);
/** Hyponym, instance hyponym. */
const NARROWER_SYMBOLS = new Set(["~", "~i"]);

const cache = new Map<string, Related[]>();

/**
 * The catalogue's words WordNet relates to `word` (not the word itself),
 * closest first. (Relating the catalogue's words back to the question's was
 * tried: 180 ms per 233 catalogue words on a sync's first question.)
 */
export function relatedCatalogueWords(word: string, known: Set<string>): string[] {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return [];
  const out: string[] = [];
  for (const r of needRelations(word)) {
    if (out.includes(r.word) || !usedBy(r.word, known)) continue;
    // The sense checks (index lookups) only for the few words the catalogue uses.
    if (!r.base && !sameRoot(word, r.word) && !inShopSense(r)) continue;
    out.push(r.word);
    if (out.length === MAX_PER_WORD) break;
  }
  return out;
}

/** Whether the catalogue uses `r`, with an ending ("pull" in "pulling"; "cycle" in "cycling"). */
function usedBy(r: string, known: Set<string>): boolean {
  const stem = r.endsWith("e") ? r.slice(0, -1) : r;
  return ENDINGS.some((e) => known.has(r + e) || known.has(stem + e));
}

/**
 * Whether a related word is in the sense a shop would use it in: reached in
 * its commonest sense, and not ambiguous (a term two steps up: one sense).
 */
function inShopSense(r: Related): boolean {
  if (senseRank(r.word, r.pos, r.offset) !== 0) return false;
  return senseCount(r.word) <= (r.further ? 1 : MAX_SENSES);
}

/** A compound's other part at least this long ("coat" in "raincoat", not "con" in "content"). */
const MIN_PART = 4;
/** Compounds searched per question word at most (the rarest in the catalogue first). */
const MAX_COMPOUNDS = 2;

/**
 * The catalogue's compounds of `word` ("rain" → "raincoat", "lamp" →
 * "headlamp"): a catalogue word that starts or ends with it, the rest a word
 * WordNet knows of at least MIN_PART letters. `known` maps a catalogue word
 * to how many products hold it.
 */
export function compoundCatalogueWords(word: string, known: Map<string, number>): string[] {
  if (word.length < MIN_PART || !/^[a-z]+$/.test(word)) return [];
  // A plural is compared as its singular too ("rains" → "raincoat").
  const forms = word.length > MIN_PART && word.endsWith("s") ? [word, word.slice(0, -1)] : [word];
  const found: { word: string; df: number }[] = [];
  for (const [c, df] of known) {
    for (const form of forms) {
      if (c.length < form.length + MIN_PART) continue;
      const rest = c.startsWith(form)
        ? c.slice(form.length)
        : c.endsWith(form)
        ? c.slice(0, -form.length)
        : "";
      if (rest && wordEntries(rest).length > 0) {
        found.push({ word: c, df });
        break;
      }
    }
  }
  return found.sort((a, b) => a.df - b.df || a.word.localeCompare(b.word))
    .slice(0, MAX_COMPOUNDS).map((f) => f.word);
}

/**
 * WordNet's words for `word`'s needs, closest first, cached per word: its
 * own base forms ("pulls" → "pull"), then each sense's relations.
 */
function needRelations(word: string): Related[] {
  const hit = cache.get(word);
  if (hit) return hit;
  const entries = wordEntries(word);
  const out: Related[] = entries.filter((e) => e.base !== word)
    .map((e) => ({ word: e.base, pos: e.pos, offset: -1, base: true }));
  for (let sense = 0; sense < SENSES; sense++) {
    for (const { pos, offsets } of entries) {
      if (sense < offsets.length) out.push(...senseWords(pos, offsets[sense]!));
    }
  }
  // A word found twice in one synset once; found in several, each time (a sense may fail).
  const seen = new Set<string>();
  const unique = out.filter((r) => {
    const key = `${r.word} ${r.pos}${r.offset}`;
    if (r.word === word || r.word.length < 3 || seen.has(key) || !/^[a-z]+$/.test(r.word)) {
      return false;
    }
    seen.add(key);
    return true;
  });
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(word, unique);
  return unique;
}

/** A related word and the synset it was found in. */
interface Related {
  word: string;
  pos: Pos;
  offset: number;
  /** Found two steps up. */
  further?: boolean;
  /** The question word's own base form. */
  base?: boolean;
}

/** Whether two words share their first ROOT letters (a derivation: "pack", "packable"). */
function sameRoot(a: string, b: string): boolean {
  return a.length >= ROOT && b.length >= ROOT && a.slice(0, ROOT) === b.slice(0, ROOT);
}

function inSynset(synset: Synset, pos: Pos, offset: number, target = 0): Related[] {
  const lemmas = target > 0 ? [synset.words[target - 1]!] : synset.words;
  return headWords(lemmas, pos).map((word) => ({ word, pos, offset }));
}

function at(p: Synset["pointers"][number], target = false): Related[] {
  return inSynset(synsetAt(p.pos, p.offset), p.pos, p.offset, target ? p.target : 0);
}

/** One sense's synonyms, derived forms, broader terms (two steps for a noun), narrower terms. */
function senseWords(pos: Pos, offset: number): Related[] {
  const synset = synsetAt(pos, offset);
  const words = inSynset(synset, pos, offset).slice(0, PER_GROUP);
  const derived = pointed(synset, DERIVED, PER_GROUP).flatMap((p) => at(p, true));
  words.push(...derived.slice(0, PER_GROUP));
  if (pos !== "noun" && pos !== "verb") return words;
  const broader = pointed(synset, BROADER, PER_GROUP);
  words.push(...broader.flatMap((p) => at(p)).slice(0, PER_GROUP));
  if (pos !== "noun") return words;
  const narrower = pointed(synset, NARROWER_SYMBOLS, NARROWER).flatMap((p) => at(p));
  words.push(...narrower.slice(0, NARROWER));
  const further = broader.flatMap((p) =>
    pointed(synsetAt(p.pos, p.offset), BROADER, 2).flatMap((q) =>
      at(q).map((r) => ({ ...r, further: true }))
    )
  );
  words.push(...further.slice(0, PER_GROUP));
  return words;
}

/** The first `max` pointers of the given kinds. */
function pointed(synset: Synset, symbols: Set<string>, max: number): Synset["pointers"] {
  return synset.pointers.filter((p) => symbols.has(p.symbol)).slice(0, max);
}

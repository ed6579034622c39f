/**
 * A file whose text cannot be read, with the reason the source shows: an
 * encrypted or image-only PDF, a damaged Word file, a file that is not what
 * its name says. Not worth retrying: the same bytes fail the same way.
 */
export class UnreadableFile extends Error {}

/** What a file yields: text with Markdown headings, or question/answer pairs (a Q&A CSV). */
export type ExtractedFile =
  | { kind: "text"; text: string; pages?: number }
  | { kind: "qa"; pairs: { question: string; answer: string }[] };

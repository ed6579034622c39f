/**
 * What an uploaded knowledge file may be, checked before its content is read:
 * its size at the door (413, from Content-Length or while the body streams
 * in), its type and the bot's file count at upload (422), a PDF's pages
 * before its text is read (the source fails with the reason). docs/knowledge.md
 * states them.
 */

/** 20 MiB: a long manual as a PDF; more is usually scans, which have no text to read. */
export const FILE_MAX_BYTES = 20 * 1024 * 1024;
/** The multipart envelope around the file (boundaries, part headers, a title field). */
export const UPLOAD_BODY_LIMIT = FILE_MAX_BYTES + 64 * 1024;
/** Pages read from one PDF. */
export const PDF_MAX_PAGES = 500;
/** Uploaded files one bot holds at once. */
export const FILES_PER_BOT = 200;
/** Text read from one file: about 500 dense pages. */
export const FILE_MAX_CHARS = 2_000_000;
/** Question/answer rows read from one CSV. */
export const CSV_MAX_ROWS = 10_000;

export type FileFormat = "pdf" | "docx" | "markdown" | "html" | "text" | "csv";

const BY_EXTENSION: Record<string, FileFormat> = {
  pdf: "pdf",
  docx: "docx",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
  txt: "text",
  text: "text",
  csv: "csv",
};

export const ACCEPTED_EXTENSIONS = Object.keys(BY_EXTENSION).map((e) => `.${e}`);

/** The format a file name says, or null for a type Parley does not read. */
export function formatOfName(fileName: string): FileFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return ext ? BY_EXTENSION[ext] ?? null : null;
}

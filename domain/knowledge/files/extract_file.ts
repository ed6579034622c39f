/** The text of an uploaded file by its format (file_limits.ts), or UnreadableFile with the reason. */
import type { FileFormat } from "../file_limits.ts";
import { extractPdf } from "./extract_pdf.ts";
import { extractDocx } from "./extract_docx.ts";
import { extractCsv, extractHtml, extractMarkdown } from "./extract_plain.ts";
import { type ExtractedFile, UnreadableFile } from "./unreadable_file.ts";

export async function extractFile(format: FileFormat, bytes: Uint8Array): Promise<ExtractedFile> {
  try {
    switch (format) {
      case "pdf":
        return await extractPdf(bytes);
      case "docx":
        return extractDocx(bytes);
      case "html":
        return extractHtml(bytes);
      case "csv":
        return extractCsv(bytes);
      case "markdown":
      case "text":
        return extractMarkdown(bytes);
    }
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    // A reader's own failure on a malformed file is still the file's fault, not a retry.
    throw new UnreadableFile(
      `The ${format.toUpperCase()} file could not be read: ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
}

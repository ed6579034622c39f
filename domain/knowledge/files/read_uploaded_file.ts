/**
 * The first step of indexing an uploaded source: read its stored file's text
 * onto the source, where training finds it (text with Markdown headings, or
 * a Q&A CSV's pairs as JSON). Sources that were not uploaded are left alone.
 * Throws UnreadableFile with the reason the source will show.
 */
import type { AppDeps } from "../../deps.ts";
import { findKnowledgeFile, setExtractedContent } from "../../../db/knowledge_files.ts";
import { sha256Hex } from "../../auth/secrets.ts";
import { FILE_MAX_CHARS, type FileFormat } from "../file_limits.ts";
import { extractFile } from "./extract_file.ts";
import { UnreadableFile } from "./unreadable_file.ts";

export async function readUploadedFile(
  deps: Pick<AppDeps, "sql">,
  workspaceId: number,
  sourceId: number,
): Promise<void> {
  const file = await findKnowledgeFile(deps.sql, workspaceId, sourceId);
  if (!file) return;
  const extracted = await extractFile(file.format as FileFormat, new Uint8Array(file.bytes));
  const content = extracted.kind === "qa"
    ? JSON.stringify(extracted.pairs)
    : extracted.text.replaceAll("\u0000", "");
  if (content.length > FILE_MAX_CHARS) {
    throw new UnreadableFile(
      `The file holds ${content.length.toLocaleString("en-US")} characters of text; one ` +
        `source holds at most ${
          FILE_MAX_CHARS.toLocaleString("en-US")
        }. Split it into smaller files.`,
    );
  }
  await setExtractedContent(deps.sql, workspaceId, sourceId, content, await sha256Hex(content));
}

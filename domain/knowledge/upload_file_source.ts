/**
 * Knowledge from an uploaded file: the source (`text`, or `qa` for a CSV
 * with question and answer columns, titled by the file's name) is stored
 * `pending` with its original file and its indexing job in one transaction;
 * the job reads the text (files/read_uploaded_file.ts) and trains it. The
 * type and the bot's file count are checked here, before anything is read;
 * the size at the door (413).
 */
import type { AppDeps } from "../deps.ts";
import { insertSource } from "../../db/knowledge.ts";
import { countBotFiles, insertKnowledgeFile, lockBotForFiles } from "../../db/knowledge_files.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { Invalid } from "../errors.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { type SourceView, sourceView } from "./list_sources.ts";
import { ACCEPTED_EXTENSIONS, FILES_PER_BOT, formatOfName } from "./file_limits.ts";
import { csvIsQa, decodeText } from "./files/extract_plain.ts";

export interface UploadedFile {
  fileName: string;
  bytes: Uint8Array;
  title?: string;
}

const TITLE_MAX = 200;

export async function uploadFileSource(
  deps: Pick<AppDeps, "sql" | "kv" | "bus">,
  workspaceId: number,
  publicKey: string,
  file: UploadedFile,
): Promise<SourceView> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const format = formatOfName(file.fileName);
  if (!format) {
    throw Invalid.field(
      "file",
      `The file must be a PDF, Word (.docx), Markdown, HTML, plain text or CSV file (${
        ACCEPTED_EXTENSIONS.join(", ")
      }); "${file.fileName}" is not.`,
    );
  }
  if (file.bytes.byteLength === 0) throw Invalid.field("file", "The file is empty.");
  const type = format === "csv" && isQaCsv(file.bytes) ? "qa" : "text";
  const title = (file.title?.trim() || file.fileName.trim()).slice(0, TITLE_MAX);
  const sha256 = await bytesSha256(file.bytes);
  const row = await deps.sql.begin(async (tx) => {
    await lockBotForFiles(tx, bot.id);
    if ((await countBotFiles(tx, workspaceId, bot.id)) >= FILES_PER_BOT) {
      throw Invalid.field(
        "file",
        `This bot already holds ${FILES_PER_BOT} uploaded files, the most it may. ` +
          "Delete one before uploading another.",
      );
    }
    const created = await insertSource(tx, workspaceId, {
      chatbotId: bot.id,
      type,
      title,
      status: "pending",
    });
    await insertKnowledgeFile(tx, workspaceId, {
      sourceId: created.id,
      chatbotId: bot.id,
      fileName: file.fileName,
      format,
      sha256,
      bytes: file.bytes,
    });
    await enqueueIndexing(tx, { workspaceId, sourceId: created.id });
    return created;
  });
  await wakeWorkers(deps.kv, INDEX_SOURCE);
  await deps.bus.emit({
    type: "knowledge.changed",
    workspaceId,
    chatbotId: bot.id,
    sourceId: row.id,
    action: "created",
  });
  return sourceView(row);
}

function isQaCsv(bytes: Uint8Array): boolean {
  try {
    return csvIsQa(decodeText(bytes.subarray(0, 64 * 1024)));
  } catch {
    return false; // binary: the job says why it cannot be read
  }
}

async function bytesSha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

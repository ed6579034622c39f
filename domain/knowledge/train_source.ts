/**
 * Index one knowledge source: chunk its text and store the chunks with their
 * full-text vectors, in one transaction, then mark it ready with a true count.
 */
import type { Sql } from "../../db/client.ts";
import {
  findSource,
  type KnowledgeSourceRow,
  replaceChunks,
  setSourceStatus,
} from "../../db/knowledge.ts";
import { chunkText } from "./chunk_text.ts";
import { NotFound } from "../errors.ts";

export async function trainSource(
  sql: Sql,
  workspaceId: number,
  sourceId: number,
  language = "english",
): Promise<KnowledgeSourceRow> {
  const source = await findSource(sql, workspaceId, sourceId);
  if (!source) throw new NotFound("Knowledge source not found.");
  const chunks = chunksOf(source);
  await sql.begin(async (tx) => {
    await replaceChunks(tx, workspaceId, {
      id: source.id,
      chatbotId: source.chatbot_id,
      language,
    }, chunks);
    await setSourceStatus(tx, workspaceId, source.id, "ready", { chunkCount: chunks.length });
  });
  return (await findSource(sql, workspaceId, sourceId))!;
}

function chunksOf(source: KnowledgeSourceRow) {
  if (source.type === "qa") {
    return [{
      ordinal: 0,
      title: source.title,
      url: null,
      content: `Q: ${source.question ?? ""}\nA: ${source.answer ?? ""}`,
    }];
  }
  return chunkText(source.content ?? "").map((c, i) => ({
    ordinal: i,
    title: c.heading ? `${source.title} — ${c.heading}` : source.title,
    url: source.source_url,
    content: c.content,
  }));
}

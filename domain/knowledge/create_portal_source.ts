/**
 * Portal knowledge create: the source is stored with status `pending` and its
 * indexing job in the same transaction, and the answer returns at once;
 * the background pipeline (domain/jobs) indexes or crawls it.
 */
import type { AppDeps } from "../deps.ts";
import { insertSource, type NewSource } from "../../db/knowledge.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { Invalid } from "../errors.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { addressPolicy, literalAddressRefusal } from "../crawl/address_policy.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { type SourceView, sourceView } from "./list_sources.ts";

export type PortalSourceInput =
  | { type: "text"; title?: string; content: string }
  | { type: "qa"; title?: string; question: string; answer: string }
  | { type: "url"; title?: string; source_url: string };

const TITLE_MAX = 200;

function defaultTitle(input: PortalSourceInput): string {
  switch (input.type) {
    case "text": {
      const firstLine = input.content.split("\n").map((l) => l.replace(/^#+\s*/, "").trim())
        .find(Boolean);
      return firstLine ? firstLine.slice(0, 80) : "Text document";
    }
    case "qa":
      return input.question.trim().slice(0, TITLE_MAX);
    case "url": {
      const u = new URL(input.source_url);
      return `${u.host}${u.pathname === "/" ? "" : u.pathname}`.slice(0, TITLE_MAX);
    }
  }
}

export async function createPortalSource(
  deps: Pick<AppDeps, "sql" | "kv" | "bus" | "config">,
  workspaceId: number,
  publicKey: string,
  input: PortalSourceInput,
): Promise<SourceView> {
  const bot = await getChatbot(deps.sql, workspaceId, publicKey);
  const title = input.title?.trim() || defaultTitle(input);
  let source: NewSource;
  if (input.type === "text") {
    source = {
      chatbotId: bot.id,
      type: "text",
      title,
      content: input.content,
      contentHash: await sha256Hex(input.content),
    };
  } else if (input.type === "qa") {
    source = {
      chatbotId: bot.id,
      type: "qa",
      title,
      question: input.question,
      answer: input.answer,
      contentHash: await sha256Hex(`${input.question}\n${input.answer}`),
    };
  } else {
    const refusal = literalAddressRefusal(input.source_url, addressPolicy(deps.config));
    if (refusal) throw Invalid.field("source_url", `The source url ${refusal}.`);
    source = { chatbotId: bot.id, type: "url", title, sourceUrl: input.source_url };
  }
  const row = await deps.sql.begin(async (tx) => {
    const created = await insertSource(tx, workspaceId, { ...source, status: "pending" });
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

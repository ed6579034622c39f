/** A bot's corrections for the dashboard, newest first (viewers read them too). */
import type { Executor } from "../../db/client.ts";
import { listBotCorrections } from "../../db/knowledge_corrections.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { type CorrectionView, correctionView } from "./correction_view.ts";

/** Enough for a page; a bot with more corrections than this has a knowledge problem to fix first. */
const LISTED = 500;

export async function listCorrections(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<CorrectionView[]> {
  const bot = await getChatbot(sql, workspaceId, publicKey);
  return (await listBotCorrections(sql, workspaceId, bot.id, LISTED)).map(correctionView);
}

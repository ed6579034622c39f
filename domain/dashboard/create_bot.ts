/**
 * Create a bot from the dashboard, within the plan's `chatbot_limit`: the
 * count and the insert run under a lock on the workspace's row, so two
 * creations at once cannot both take the last place. At the limit: 422 on
 * `name` with a sentence naming the plan and its limit.
 */
import type { Sql } from "../../db/client.ts";
import { lockAndCountChatbots, upsertChatbot } from "../../db/chatbots.ts";
import { findPlanOfWorkspace } from "../../db/workspaces.ts";
import { randomSecret } from "../auth/secrets.ts";
import { Invalid } from "../errors.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { type PortalBotDetail, portalBotDetail } from "../portal/portal_chatbot_view.ts";

export interface NewBot {
  name: string;
  provider: string;
  model: string;
  persona: string;
  instructions: string;
  welcome_message: string;
  language: string;
}

export async function createBot(
  sql: Sql,
  workspaceId: number,
  input: NewBot,
): Promise<PortalBotDetail> {
  const key = await sql.begin(async (tx) => {
    const count = await lockAndCountChatbots(tx, workspaceId);
    const plan = await findPlanOfWorkspace(tx, workspaceId);
    if (count >= plan.chatbot_limit) {
      throw Invalid.field(
        "name",
        `Your plan (${plan.name}) allows ${plan.chatbot_limit} bots and you have ${count}. ` +
          "Delete a bot or change plans to create another.",
      );
    }
    const bot = await upsertChatbot(tx, workspaceId, {
      name: input.name,
      publicKey: `bot_${randomSecret(12).replace(/[^A-Za-z0-9]/g, "")}`,
      role: "support",
      provider: input.provider,
      model: input.model,
      isActive: true,
      persona: input.persona,
      instructions: input.instructions,
      welcomeMessage: input.welcome_message.trim() === "" ? null : input.welcome_message,
      branding: {},
      language: input.language,
    });
    return bot.public_key;
  });
  return portalBotDetail(await getChatbot(sql, workspaceId, key));
}

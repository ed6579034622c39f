/** The integration API v1 (`/api/v1`, ability `api`): a map, nothing else. */
import { router } from "../trpc.ts";
import { me } from "./me.ts";
import { listBots, showBot } from "./chatbots.ts";
import { listConversations, showConversation } from "./conversations.ts";
import { addKnowledge } from "./knowledge.ts";
import { sendMessage } from "./messages.ts";
import { eraseContactProcedure, exportContactProcedure } from "./contacts.ts";

export const v1Router = router({
  me,
  listBots,
  showBot,
  listConversations,
  showConversation,
  addKnowledge,
  sendMessage,
  eraseContact: eraseContactProcedure,
  exportContact: exportContactProcedure,
});

/** The portal surface (`/api/portal`, ability `portal`): a map of its procedures, nothing else. */
import { router } from "../trpc.ts";
import { login, logout, me } from "./session.ts";
import { portalSecondStep } from "./two_factor.ts";
import { listBots, showBot, updateBot } from "./chatbots.ts";
import {
  createKnowledge,
  deleteKnowledge,
  listKnowledge,
  setKnowledgeSchedule,
  syncKnowledge,
} from "./knowledge.ts";
import { deleteKey, listKeys, putKey } from "./keys.ts";
import { analytics, snippet } from "./insights.ts";
import { report } from "./reports.ts";
import { showCatalogue, syncCatalogue } from "./catalogue.ts";
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  rotateWebhookSecret,
  showWebhook,
  updateWebhook,
} from "./webhooks.ts";

export const portalRouter = router({
  login,
  logout,
  me,
  ...portalSecondStep,
  listBots,
  showBot,
  updateBot,
  listKnowledge,
  createKnowledge,
  deleteKnowledge,
  setKnowledgeSchedule,
  syncKnowledge,
  listKeys,
  putKey,
  deleteKey,
  analytics,
  report,
  snippet,
  showCatalogue,
  syncCatalogue,
  listWebhooks,
  createWebhook,
  showWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  redeliverWebhook,
});

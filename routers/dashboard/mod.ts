/**
 * The owners' dashboard surface (`/api/dashboard`, ability `dashboard`): a map
 * of its procedures, one file per resource, nothing else. Part 2 (team,
 * inbox settings, API tokens, integrations, history) and webhooks add their
 * files and one line each here.
 */
import { router } from "../trpc.ts";
import { login, logout, me, refresh } from "./session.ts";
import { overview, series } from "./overview.ts";
import { deleteKey, listKeys, putKey } from "./keys.ts";
import { addKnowledge, deleteKnowledge, listKnowledge, retrainKnowledge } from "./knowledge.ts";
import { createBotProcedure, deleteBotProcedure, listBots, showBot, updateBot } from "./bots.ts";
import { createTagProcedure, deleteTagProcedure, listTags, updateTagProcedure } from "./tags.ts";
import { createCanned, deleteCanned, listCanned, updateCanned } from "./canned.ts";
import { createTokenProcedure, listTokens, revokeTokenProcedure } from "./api_tokens.ts";
import { invite, removeMember, revokeInvite, team, updateMember } from "./team.ts";
import { acceptInvitationProcedure, readInvitation } from "./invitation.ts";
import {
  linkIntegrationProcedure,
  listIntegrationsProcedure,
  testIntegrationProcedure,
  unlinkIntegrationProcedure,
} from "./integrations.ts";
import { dashboardBroadcastingAuth } from "./broadcasting.ts";
import { listConversations, showConversation } from "./history.ts";
import {
  conversationContactProcedure,
  eraseContactProcedure,
  eraseConversationProcedure,
  exportContactProcedure,
  listContactsProcedure,
  showContactProcedure,
} from "./contacts.ts";
import { showRetention, updateRetention } from "./retention.ts";
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from "./webhooks.ts";

export const dashboardRouter = router({
  login,
  refresh,
  me,
  logout,
  overview,
  series,
  listBots,
  showBot,
  createBot: createBotProcedure,
  updateBot,
  deleteBot: deleteBotProcedure,
  listKeys,
  putKey,
  deleteKey,
  listTags,
  createTag: createTagProcedure,
  updateTag: updateTagProcedure,
  deleteTag: deleteTagProcedure,
  listCanned,
  createCanned,
  updateCanned,
  deleteCanned,
  listApiTokens: listTokens,
  createApiToken: createTokenProcedure,
  revokeApiToken: revokeTokenProcedure,
  team,
  // The static invitation paths come before …/team/{user}.
  invite,
  revokeInvite,
  updateMember,
  removeMember,
  readInvitation,
  acceptInvitation: acceptInvitationProcedure,
  listKnowledge,
  addKnowledge,
  deleteKnowledge,
  retrainKnowledge,
  listIntegrations: listIntegrationsProcedure,
  linkIntegration: linkIntegrationProcedure,
  unlinkIntegration: unlinkIntegrationProcedure,
  testIntegration: testIntegrationProcedure,
  broadcastingAuth: dashboardBroadcastingAuth,
  listConversations,
  // The static …/erase path of a conversation is a POST: no clash with the GET below.
  eraseConversation: eraseConversationProcedure,
  conversationContact: conversationContactProcedure,
  showConversation,
  listContacts: listContactsProcedure,
  exportContact: exportContactProcedure,
  eraseContact: eraseContactProcedure,
  showContact: showContactProcedure,
  showRetention,
  updateRetention,
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  redeliverWebhook,
});

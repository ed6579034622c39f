/**
 * The owners' dashboard surface (`/api/dashboard`, ability `dashboard`): a map
 * of its procedures, one file per resource, nothing else. Part 2 (team,
 * inbox settings, API tokens, integrations, history) and webhooks add their
 * files and one line each here.
 */
import { router } from "../trpc.ts";
import { login, logout, me, refresh } from "./session.ts";
import {
  dashboardSecondStep,
  dashboardTwoFactorAccount,
  setTwoFactorRequirementProcedure,
} from "./two_factor.ts";
import { overview, series } from "./overview.ts";
import { report } from "./reports.ts";
import { deleteKey, listKeys, putKey, testKey } from "./keys.ts";
import {
  addKnowledge,
  deleteKnowledge,
  listKnowledge,
  retrainKnowledge,
  setKnowledgeSchedule,
  syncKnowledge,
} from "./knowledge.ts";
import { createBotProcedure, deleteBotProcedure, listBots, showBot, updateBot } from "./bots.ts";
import { createTagProcedure, deleteTagProcedure, listTags, updateTagProcedure } from "./tags.ts";
import { createCanned, deleteCanned, listCanned, updateCanned } from "./canned.ts";
import { createTokenProcedure, listTokens, revokeTokenProcedure } from "./api_tokens.ts";
import { invite, removeMember, resendInvite, revokeInvite, team, updateMember } from "./team.ts";
import { acceptInvitationProcedure, readInvitation } from "./invitation.ts";
import {
  accountProfile,
  changeAccountPassword,
  endAccountSession,
  endOtherAccountSessions,
  listAccountSessions,
  updateAccountProfile,
} from "./account.ts";
import { forgotPassword, resetPasswordProcedure } from "./password_reset.ts";
import { endMemberSessionsProcedure, issueMemberResetLink } from "./team_accounts.ts";
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
  sendWebhookTestEvent,
  updateWebhook,
} from "./webhooks.ts";
import { listAuditLogProcedure } from "./audit_log.ts";
import {
  correctAnswerProcedure,
  editCorrectionProcedure,
  listCorrectionsProcedure,
} from "./corrections.ts";

export const dashboardRouter = router({
  login,
  refresh,
  me,
  logout,
  // docs/accounts.md: any sign-in token of the person (accountProcedure).
  accountProfile,
  updateAccountProfile,
  changeAccountPassword,
  listAccountSessions,
  endOtherAccountSessions,
  endAccountSession,
  forgotPassword,
  resetPassword: resetPasswordProcedure,
  ...dashboardSecondStep,
  twoFactorStatus: dashboardTwoFactorAccount.status,
  startTwoFactor: dashboardTwoFactorAccount.start,
  confirmTwoFactor: dashboardTwoFactorAccount.confirm,
  disableTwoFactor: dashboardTwoFactorAccount.disable,
  setTwoFactorRequirement: setTwoFactorRequirementProcedure,
  overview,
  series,
  report,
  listBots,
  showBot,
  createBot: createBotProcedure,
  updateBot,
  deleteBot: deleteBotProcedure,
  listKeys,
  putKey,
  deleteKey,
  testKey,
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
  resendInvite,
  // Before …/team/{user}: longer paths under it.
  issueMemberResetLink,
  endMemberSessions: endMemberSessionsProcedure,
  updateMember,
  removeMember,
  readInvitation,
  acceptInvitation: acceptInvitationProcedure,
  listKnowledge,
  addKnowledge,
  deleteKnowledge,
  retrainKnowledge,
  listCorrections: listCorrectionsProcedure,
  editCorrection: editCorrectionProcedure,
  setKnowledgeSchedule,
  syncKnowledge,
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
  correctAnswer: correctAnswerProcedure,
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
  sendWebhookTestEvent,
  listAuditLog: listAuditLogProcedure,
});

/** The agent surface (`/api/agent`, ability `agent`): a map of its procedures, nothing else. */
import { router } from "../trpc.ts";
import { login, logout, me, refresh } from "./session.ts";
import { agentSecondStep, agentTwoFactorAccount } from "./two_factor.ts";
import { conversation, inbox } from "./inbox.ts";
import {
  assign,
  block,
  note,
  release,
  reopen,
  reply,
  resolve,
  takeover,
  watch,
} from "./conversation_actions.ts";
import { attachTag, canned, cannedUsed, detachTag, tags } from "./catalogue.ts";
import { broadcastingAuth } from "./broadcasting.ts";
import { pushSubscribe, pushVapid } from "./push.ts";
import { notificationPreferences, updatePreferences } from "./notification_preferences.ts";
import { revenue, suggest, suggestionOutcome, summary } from "./assist.ts";
import { invite, visitors } from "./live_visitors.ts";
import { customerContext } from "./customer_context.ts";
import { correctAnswer } from "./correction.ts";
import { requestShare, screenShareStatus, stopShare } from "./screen_share.ts";

export const agentRouter = router({
  login,
  refresh,
  me,
  logout,
  ...agentSecondStep,
  twoFactorStatus: agentTwoFactorAccount.status,
  startTwoFactor: agentTwoFactorAccount.start,
  confirmTwoFactor: agentTwoFactorAccount.confirm,
  disableTwoFactor: agentTwoFactorAccount.disable,
  inbox,
  conversation,
  reply,
  takeover,
  release,
  resolve,
  reopen,
  note,
  assign,
  watch,
  block,
  correctAnswer,
  tags,
  attachTag,
  detachTag,
  canned,
  cannedUsed,
  broadcastingAuth,
  pushVapid,
  pushSubscribe,
  notificationPreferences,
  updatePreferences,
  suggest,
  suggestionOutcome,
  summary,
  revenue,
  visitors,
  invite,
  customerContext,
  screenShareStatus,
  requestShare,
  stopShare,
});

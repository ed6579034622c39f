/**
 * Every action the audit log records, named once. The dashboard's filter and
 * docs/accounts.md list these names; a new security-relevant action is added
 * here first.
 */
export const AUDIT_ACTIONS = [
  "auth.sign_in",
  "auth.sign_in_failed",
  "auth.two_factor_enabled",
  "auth.two_factor_disabled",
  "auth.recovery_code_used",
  "auth.password_changed",
  "auth.password_reset_requested",
  "auth.password_reset",
  "auth.session_ended",
  "profile.changed",
  "team.role_changed",
  "team.member_suspended",
  "team.member_reinstated",
  "team.member_removed",
  "team.invitation_sent",
  "team.invitation_accepted",
  "team.invitation_revoked",
  "api_token.created",
  "api_token.revoked",
  "provider_key.set",
  "provider_key.removed",
  "integration.linked",
  "integration.unlinked",
  "webhook.created",
  "webhook.changed",
  "webhook.secret_rotated",
  "webhook.deleted",
  "conversations.exported",
  "bot.deleted",
  "knowledge.deleted",
  "knowledge.corrected",
  "knowledge.correction_changed",
  "workspace.settings_changed",
  "audit.pruned",
  "contact.erased",
  "conversation.erased",
  "contact.exported",
  "retention.run",
] as const;

export type AuditAction = typeof AUDIT_ACTIONS[number];

/**
 * The dashboard's navigation, in order: one line per screen. A screen is one
 * view file exporting a `Screen` (screen.ts); add it here and it appears in
 * the navigation and answers at `#/<path>`.
 */
import type { Screen } from "./screen.ts";
import { overviewScreen } from "./views/overview_view.ts";
import { botsScreen } from "./views/bots_view.ts";
import { keysScreen } from "./views/keys_view.ts";
import { inboxSettingsScreen } from "./views/inbox_settings_view.ts";
import { apiTokensScreen } from "./views/api_tokens_view.ts";
import { teamScreen } from "./views/team_view.ts";
import { integrationsScreen } from "./views/integrations_view.ts";
import { historyScreen } from "./views/history_view.ts";
import { webhooksScreen } from "./views/webhooks_view.ts";
import { auditLogScreen } from "./views/audit_log_view.ts";
import { accountScreen } from "./views/account_view.ts";
import { twoFactorScreen } from "./views/two_factor_view.ts";
import { reportsScreen } from "./views/reports_view.ts";
import { contactsScreen } from "./views/contacts_view.ts";

export const SCREENS: readonly Screen[] = [
  overviewScreen,
  botsScreen,
  historyScreen,
  reportsScreen,
  contactsScreen,
  keysScreen,
  teamScreen,
  inboxSettingsScreen,
  apiTokensScreen,
  integrationsScreen,
  webhooksScreen,
  auditLogScreen,
  accountScreen,
  twoFactorScreen,
];

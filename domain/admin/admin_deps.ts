/** What every admin action receives: the database, the key for secrets, the time. */
import type { Sql } from "../../db/client.ts";
import { findUserByEmail, type UserRow } from "../../db/users.ts";
import { findWorkspaceBySlug, type WorkspaceRow } from "../../db/workspaces.ts";
import { NotFound } from "../errors.ts";
import type { WebhookConfig } from "../../app/config.ts";
import { type AuditActor, systemActor } from "../audit/record_audit.ts";

export interface AdminDeps {
  sql: Sql;
  appKey: CryptoKey;
  now: Date;
  /** Which webhook URLs are allowed (WEBHOOK_ALLOW_HOSTS); absent: https and public only. */
  webhooks?: WebhookConfig;
  /** BASE_URL, for links the CLI prints (a password reset link). */
  baseUrl?: string;
}

/** The workspace named on the command line, or NotFound naming the slug. */
export async function requireWorkspace(sql: Sql, slug: string): Promise<WorkspaceRow> {
  const ws = await findWorkspaceBySlug(sql, slug);
  if (!ws) throw new NotFound(`No workspace with slug "${slug}".`);
  return ws;
}

/** The user named by e-mail, or NotFound naming the address. */
export async function requireUser(sql: Sql, email: string): Promise<UserRow> {
  const user = await findUserByEmail(sql, email);
  if (!user) throw new NotFound(`No user with e-mail "${email}".`);
  return user;
}

/** Who the audit log names for a change made with the admin CLI (an operator, no user). */
export function adminCliActor(): AuditActor {
  return systemActor("admin CLI");
}

/**
 * Write one audit row, in the caller's transaction: an action and its record
 * commit or roll back together. Details carry public ids, names and counts;
 * a key that names a secret is refused here, so a careless caller fails its
 * test instead of storing a password.
 */
import type { Executor } from "../../db/client.ts";
import { insertAuditEntry } from "../../db/audit_log.ts";
import type { Auth } from "../auth/tokens.ts";
import type { AuditAction } from "./audit_actions.ts";

/** Who acted: a user through one of their tokens, or the service itself. */
export interface AuditActor {
  userId: number | null;
  tokenId: number | null;
  /** Name and e-mail at the time, readable after the user is removed. */
  label: string;
  ip: string | null;
}

export type AuditDetail = string | number | boolean | null | string[];

export interface AuditRecord {
  workspaceId: number | null;
  actor: AuditActor;
  action: AuditAction;
  target?: { type: string; id: string | number } | null;
  details?: Record<string, AuditDetail>;
  now: Date;
}

const SECRET_KEY = /secret|password|passcode|credential|private|api_?key|plain|code$|^token$/i;

/** The signed-in caller of a request as an audit actor. */
export function actorOf(auth: Auth, ip: string | null): AuditActor {
  return {
    userId: auth.user.id,
    tokenId: auth.tokenId,
    label: `${auth.user.name} <${auth.user.email}>`,
    ip,
  };
}

/** A person known by e-mail only (a failed sign-in, a reset request). */
export function anonymousActor(email: string, ip: string | null): AuditActor {
  return { userId: null, tokenId: null, label: email, ip };
}

/** The service itself: background jobs (retention, pruning) and the admin CLI. */
export function systemActor(label = "system"): AuditActor {
  return { userId: null, tokenId: null, label, ip: null };
}

export async function recordAudit(sql: Executor, r: AuditRecord): Promise<void> {
  const details = r.details ?? {};
  for (const key of Object.keys(details)) {
    if (SECRET_KEY.test(key)) throw new Error(`audit details may not hold "${key}"`);
  }
  await insertAuditEntry(sql, {
    workspaceId: r.workspaceId,
    occurredAt: r.now,
    actorUserId: r.actor.userId,
    actorTokenId: r.actor.tokenId,
    actorLabel: r.actor.label,
    ip: r.actor.ip,
    action: r.action,
    targetType: r.target?.type ?? null,
    targetId: r.target ? String(r.target.id) : null,
    details,
  });
}

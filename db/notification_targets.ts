/**
 * What an alert needs to be written and addressed: the conversation (or
 * visitor) it is about, and the agents it concerns with their preferences
 * and push subscriptions, each in one query.
 */
import type { Executor } from "./client.ts";
import { type NewJob, newJobRows } from "./jobs.ts";

export interface AlertConversation {
  id: number;
  public_id: string;
  chatbot_id: number;
  chatbot_name: string;
  visitor_name: string | null;
  handoff_requested_at: Date | null;
  message: string | null;
}

export async function findAlertConversation(
  sql: Executor,
  workspaceId: number,
  publicId: string,
  messageId: number | null,
): Promise<AlertConversation | null> {
  const [row] = await sql<AlertConversation[]>`
    SELECT c.id, c.public_id, c.chatbot_id, b.name AS chatbot_name, c.visitor_name,
           c.handoff_requested_at, m.content AS message
      FROM conversations c
      JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN messages m ON m.id = ${messageId} AND m.conversation_id = c.id
     WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId}`;
  return row ?? null;
}

export async function findChatbotName(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
): Promise<string | null> {
  const [row] = await sql<{ name: string }[]>`
    SELECT name FROM chatbots WHERE id = ${chatbotId} AND workspace_id = ${workspaceId}`;
  return row?.name ?? null;
}

export interface PushTargetRow {
  id: number;
  endpoint: string;
  /** Sealed under APP_KEY (domain/notifications/push_keys.ts). */
  keys_ciphertext: string;
}

export interface AlertTarget {
  user_id: number;
  email: string;
  settings: Record<string, unknown> | null;
  dnd_until: Date | null;
  subscriptions: PushTargetRow[];
}

/**
 * The agents an alert concerns: everyone who handles conversations in an
 * active workspace, or, with `conversationId` (visitor messages), only the
 * agent the conversation is assigned to and its watchers, unless it is
 * unassigned and waiting for a human, when everyone is. Subscriptions whose
 * token was revoked or has expired (a device signed out by an administrator,
 * or unused for the token's life) are left out.
 */
export async function findAlertTargets(
  sql: Executor,
  workspaceId: number,
  conversationId: number | null,
): Promise<AlertTarget[]> {
  return await sql<AlertTarget[]>`
    WITH c AS (
      SELECT id, assigned_user_id,
             (assigned_user_id IS NULL AND status <> 'closed'
              AND (handoff_state = 'handoff_pending' OR status = 'agent')) AS waiting
        FROM conversations WHERE id = ${conversationId})
    SELECT u.id AS user_id, u.email, p.settings, p.dnd_until,
           COALESCE(json_agg(json_build_object('id', s.id, 'endpoint', s.endpoint,
                                               'keys_ciphertext', s.keys_ciphertext) ORDER BY s.id)
                      FILTER (WHERE s.id IS NOT NULL AND s.keys_ciphertext IS NOT NULL
                                AND (s.token_id IS NULL
                                     OR (t.revoked_at IS NULL AND t.expires_at > now()))),
                    '[]'::json) AS subscriptions
      FROM users u
      JOIN workspaces w ON w.id = u.workspace_id AND NOT w.suspended
      LEFT JOIN notification_preferences p ON p.user_id = u.id
      LEFT JOIN push_subscriptions s ON s.user_id = u.id
      LEFT JOIN access_tokens t ON t.id = s.token_id
     WHERE u.workspace_id = ${workspaceId} AND NOT u.suspended
       AND u.role IN ('owner', 'administrator', 'agent')
       AND (${conversationId}::bigint IS NULL
            OR EXISTS (SELECT 1 FROM c WHERE c.waiting OR c.assigned_user_id = u.id)
            OR EXISTS (SELECT 1 FROM conversation_watchers cw
                        WHERE cw.conversation_id = ${conversationId} AND cw.user_id = u.id))
     GROUP BY u.id, p.settings, p.dnd_until
     ORDER BY u.id`;
}

/**
 * Queues alert jobs (each naming its workspace in `payload.workspaceId`) in
 * one statement, leaving out the alerts no one could receive: with e-mail
 * off, a workspace where no agent has a push subscription; and a visitor's
 * message in a conversation nobody follows (not assigned, not waiting for a
 * human, no watcher: the AI handles it alone), whom `findAlertTargets` would
 * find no one for. Without this, each such message ran a job (claim, two
 * reads, completion) that reached nobody, on the embedded database's one
 * connection. Kept beside `findAlertTargets`: the two rules must agree.
 * Scalar subqueries, not EXISTS: the planner turned EXISTS under OR into a
 * hashed subplan that read every conversation and watcher once per INSERT;
 * these look up each alert's rows by index.
 */
export async function insertReachableAlertJobs(
  sql: Executor,
  jobs: NewJob[],
  email: boolean,
): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = await sql`
    INSERT INTO jobs (kind, payload, dedupe_key, max_attempts)
    SELECT j.kind, j.payload, j.dedupe_key, j.max_attempts
      FROM ${newJobRows(sql, jobs)}
     WHERE (${email}::boolean
            OR (SELECT true FROM users u JOIN push_subscriptions s ON s.user_id = u.id
                 WHERE u.workspace_id = (j.payload->>'workspaceId')::bigint
                   AND NOT u.suspended AND s.keys_ciphertext IS NOT NULL
                 LIMIT 1))
       AND (j.payload->>'kind' IS DISTINCT FROM 'visitor_message'
            OR (SELECT c.assigned_user_id IS NOT NULL
                       OR (c.status <> 'closed'
                           AND (c.handoff_state = 'handoff_pending' OR c.status = 'agent'))
                       OR (SELECT true FROM conversation_watchers cw
                            WHERE cw.conversation_id = c.id LIMIT 1)
                  FROM conversations c
                 WHERE c.workspace_id = (j.payload->>'workspaceId')::bigint
                   AND c.public_id = (j.payload->>'conversationId')::uuid))
    ON CONFLICT (dedupe_key) DO NOTHING
    RETURNING id`;
  return rows.length;
}

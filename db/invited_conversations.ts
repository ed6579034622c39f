/** The writes of an agent's invitation: a human-owned conversation and its event. */
import type { Executor } from "./client.ts";
import type { ConversationRow } from "./conversations.ts";

/** A new conversation a human owns from the start (the visitor has not written yet). */
export async function insertInvitedConversation(
  sql: Executor,
  workspaceId: number,
  c: { chatbotId: number; visitorId: string; agentUserId: number; now: Date },
): Promise<ConversationRow> {
  const [row] = await sql<ConversationRow[]>`
    INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, channel, status,
      handoff_state, assigned_user_id, routed_by, last_message_at, created_at)
    VALUES (${workspaceId}, ${c.chatbotId}, ${c.visitorId}, 'widget', 'agent',
      'human_connected', ${c.agentUserId}, 'invite', ${c.now}, ${c.now})
    RETURNING *`;
  return row!;
}

/** The bot an invitation is sent from: the given one, else `preferred`, else the oldest; active only. */
export async function findInvitingBot(
  sql: Executor,
  workspaceId: number,
  opts: { chatbotId?: number; preferredId: number },
): Promise<{ id: number } | null> {
  const only = opts.chatbotId !== undefined ? sql`AND b.id = ${opts.chatbotId}` : sql``;
  const [row] = await sql<{ id: number }[]>`
    SELECT b.id FROM chatbots b
     WHERE b.workspace_id = ${workspaceId} AND b.is_active ${only}
     ORDER BY (b.id = ${opts.preferredId}) DESC, b.id
     LIMIT 1`;
  return row ?? null;
}

/**
 * The bot of the visitor's latest open conversation in the workspace (on
 * `chatbotId` only, when given): a visitor who wrote without a widget
 * heartbeat (the integration API) has no visitor row, only conversations.
 */
export async function findOpenConversationBot(
  sql: Executor,
  workspaceId: number,
  visitorId: string,
  chatbotId?: number,
): Promise<number | null> {
  const only = chatbotId !== undefined ? sql`AND chatbot_id = ${chatbotId}` : sql``;
  const [row] = await sql<{ chatbot_id: number }[]>`
    SELECT chatbot_id FROM conversations
     WHERE chatbot_id IN (SELECT id FROM chatbots WHERE workspace_id = ${workspaceId} AND is_active
                             AND branding->'live_visitors' IS DISTINCT FROM 'false'::jsonb)
       AND workspace_id = ${workspaceId} AND visitor_id = ${visitorId} AND status <> 'closed' ${only}
     ORDER BY last_message_at DESC, id DESC
     LIMIT 1`;
  return row ? Number(row.chatbot_id) : null;
}

/**
 * Serialise invitations to one visitor of one bot until the transaction ends,
 * so two agents inviting at once cannot open two conversations.
 */
export async function lockVisitorForInvite(
  tx: Executor,
  chatbotId: number,
  visitorId: string,
): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`invite:${chatbotId}:${visitorId}`}, 0))`;
}

/**
 * The statements that erase a contact's rows (domain/contacts/erase_contact.ts
 * runs them in one transaction). The conversation's own tables (messages and
 * their search index entries, notes, tags, events, reads, watchers, SLA
 * breaches, screen shares, AI assist calls, product recommendations) go by
 * ON DELETE CASCADE; the rows that name a conversation only inside a value
 * (queued e-mail alerts, jobs, webhook events) are deleted here by that value.
 * Usage counters are not touched: the month's message count stays.
 */
import type { Executor } from "./client.ts";
import { type ContactScope, visitorArrays } from "./contact_scope.ts";

export type ErasedCounts = Record<string, number>;

export async function eraseScopeRows(
  sql: Executor,
  workspaceId: number,
  scope: ContactScope,
): Promise<ErasedCounts> {
  const ids = sql.array(scope.conversationIds);
  const pub = sql.array(scope.publicIds);
  const v = visitorArrays(sql, scope.visitors);
  const visitorIds = sql.array(scope.visitors.map((x) => x.visitor_id));
  // Counted before the cascade removes them: the audit row's "how many rows".
  const [c] = await sql<ErasedCounts[]>`
    SELECT
      (SELECT count(*) FROM messages WHERE conversation_id = ANY(${ids}::bigint[]))::int AS messages,
      (SELECT count(*) FROM conversation_notes WHERE conversation_id = ANY(${ids}::bigint[]))::int AS notes,
      (SELECT count(*) FROM conversation_tags WHERE conversation_id = ANY(${ids}::bigint[]))::int AS tags,
      (SELECT count(*) FROM conversation_events WHERE conversation_id = ANY(${ids}::bigint[]))::int AS events,
      (SELECT count(*) FROM screen_shares WHERE conversation_id = ANY(${ids}::bigint[]))::int AS screen_shares,
      (SELECT count(*) FROM ai_assist_calls WHERE conversation_id = ANY(${ids}::bigint[]))::int AS ai_assist_calls,
      (SELECT count(*) FROM product_recommendations WHERE conversation_id = ANY(${ids}::bigint[]))::int
        AS product_recommendations,
      (SELECT count(*) FROM conversations WHERE id = ANY(${ids}::bigint[]) AND rating IS NOT NULL)::int
        AS ratings,
      (SELECT count(*) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE e.workspace_id = ${workspaceId}
          AND e.source ->> 'conversationId' = ANY(${pub}::text[]))::int AS webhook_deliveries`;
  const count = async (q: PromiseLike<{ length: number }>) => (await q).length;
  const webhookEvents = await count(sql`
    DELETE FROM webhook_events WHERE workspace_id = ${workspaceId}
       AND source ->> 'conversationId' = ANY(${pub}::text[]) RETURNING 1`);
  const emailItems = await count(sql`
    DELETE FROM notification_email_items WHERE workspace_id = ${workspaceId}
       AND conversation_id::text = ANY(${pub}::text[]) RETURNING 1`);
  // Alerts and push retries still queued about these conversations or visitors.
  const jobs = await count(sql`
    DELETE FROM jobs WHERE status <> 'running' AND (
           payload ->> 'conversationId' = ANY(${pub}::text[])
        OR payload -> 'alert' ->> 'conversation_id' = ANY(${pub}::text[])
        OR (payload ->> 'workspaceId' = ${String(workspaceId)}
            AND payload ->> 'visitorId' = ANY(${visitorIds}::text[]))) RETURNING 1`);
  const conversations = await count(sql`
    DELETE FROM conversations WHERE workspace_id = ${workspaceId}
       AND id = ANY(${ids}::bigint[]) RETURNING 1`);
  // A visitor goes with its last conversation (erasing one conversation of
  // several keeps the visitor's other conversations and its row).
  const visitors = await count(sql`
    DELETE FROM visitors x USING unnest(${v.bots}::bigint[], ${v.ids}::text[]) AS s(bot, vid)
     WHERE x.workspace_id = ${workspaceId} AND x.chatbot_id = s.bot AND x.visitor_id = s.vid
       AND NOT EXISTS (SELECT 1 FROM conversations k
                        WHERE k.chatbot_id = s.bot AND k.visitor_id = s.vid) RETURNING 1`);
  const contacts = await count(sql`
    DELETE FROM contacts x USING unnest(${v.bots}::bigint[], ${v.ids}::text[]) AS s(bot, vid)
     WHERE x.workspace_id = ${workspaceId} AND x.chatbot_id = s.bot AND x.visitor_id = s.vid
       AND NOT EXISTS (SELECT 1 FROM conversations k
                        WHERE k.chatbot_id = s.bot AND k.visitor_id = s.vid) RETURNING 1`);
  const blocked = await count(sql`
    DELETE FROM blocked_visitors b WHERE b.workspace_id = ${workspaceId}
       AND b.visitor_id = ANY(${visitorIds}::text[])
       AND NOT EXISTS (SELECT 1 FROM conversations k
                        WHERE k.workspace_id = ${workspaceId} AND k.visitor_id = b.visitor_id)
    RETURNING 1`);
  return {
    conversations,
    ...c!,
    webhook_events: webhookEvents,
    notification_email_items: emailItems,
    jobs,
    visitors,
    contacts,
    blocked_visitors: blocked,
  };
}

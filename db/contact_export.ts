/**
 * Everything erasure would delete, read as JSON rows (the right of access,
 * docs/data-protection.md#export): each conversation with its messages,
 * notes, tags, events, screen shares, AI assist calls and product
 * recommendations, then the visitors, contacts, queued alerts and jobs and
 * the webhook events that hold these conversations.
 */
import type { Executor } from "./client.ts";
import { type ContactScope, visitorArrays } from "./contact_scope.ts";

type Row = Record<string, unknown>;

export interface ContactExportRows {
  conversations: Row[];
  visitors: Row[];
  contacts: Row[];
  blocked_visitors: Row[];
  notification_email_items: Row[];
  queued_jobs: Row[];
  webhook_events: Row[];
}

export async function readScopeRows(
  sql: Executor,
  workspaceId: number,
  scope: ContactScope,
): Promise<ContactExportRows> {
  const ids = sql.array(scope.conversationIds);
  const pub = sql.array(scope.publicIds);
  const v = visitorArrays(sql, scope.visitors);
  const visitorIds = sql.array(scope.visitors.map((x) => x.visitor_id));
  const rows = async (q: PromiseLike<readonly object[]>) =>
    (await q).map((x) => (x as { r: Row }).r);
  const [conversations, visitors, contacts, blocked, emailItems, jobs, webhooks] = await Promise
    .all([
      rows(sql`
        SELECT to_jsonb(c) - 'read_by' || jsonb_build_object(
          'chatbot_key', b.public_key,
          'tags', (SELECT coalesce(jsonb_agg(jsonb_build_object('name', t.name, 'source', ct.source)), '[]')
                     FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                    WHERE ct.conversation_id = c.id),
          'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]')
                         FROM messages m WHERE m.conversation_id = c.id),
          'notes', (SELECT coalesce(jsonb_agg(to_jsonb(n) ORDER BY n.id), '[]')
                      FROM conversation_notes n WHERE n.conversation_id = c.id),
          'events', (SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e.id), '[]')
                       FROM conversation_events e WHERE e.conversation_id = c.id),
          'screen_shares', (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.id), '[]')
                              FROM screen_shares s WHERE s.conversation_id = c.id),
          'ai_assist_calls', (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.id), '[]')
                                FROM ai_assist_calls a WHERE a.conversation_id = c.id),
          'product_recommendations', (SELECT coalesce(jsonb_agg(to_jsonb(p) ORDER BY p.id), '[]')
                                        FROM product_recommendations p WHERE p.conversation_id = c.id),
          'sla_breaches', (SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]')
                             FROM sla_breaches x WHERE x.conversation_id = c.id)) AS r
          FROM conversations c JOIN chatbots b ON b.id = c.chatbot_id
         WHERE c.workspace_id = ${workspaceId} AND c.id = ANY(${ids}::bigint[])
         ORDER BY c.id`),
      rows(sql`
        SELECT to_jsonb(x) AS r FROM visitors x
          JOIN unnest(${v.bots}::bigint[], ${v.ids}::text[]) AS s(bot, vid)
            ON x.chatbot_id = s.bot AND x.visitor_id = s.vid
         WHERE x.workspace_id = ${workspaceId}`),
      rows(sql`
        SELECT to_jsonb(x) AS r FROM contacts x
          JOIN unnest(${v.bots}::bigint[], ${v.ids}::text[]) AS s(bot, vid)
            ON x.chatbot_id = s.bot AND x.visitor_id = s.vid
         WHERE x.workspace_id = ${workspaceId}`),
      rows(sql`
        SELECT to_jsonb(b) AS r FROM blocked_visitors b
         WHERE b.workspace_id = ${workspaceId} AND b.visitor_id = ANY(${visitorIds}::text[])`),
      rows(sql`
        SELECT to_jsonb(n) AS r FROM notification_email_items n
         WHERE n.workspace_id = ${workspaceId} AND n.conversation_id::text = ANY(${pub}::text[])`),
      rows(sql`
        SELECT jsonb_build_object('kind', j.kind, 'status', j.status, 'payload', j.payload,
                                  'created_at', j.created_at) AS r
          FROM jobs j
         WHERE j.payload ->> 'conversationId' = ANY(${pub}::text[])
            OR j.payload -> 'alert' ->> 'conversation_id' = ANY(${pub}::text[])
            OR (j.payload ->> 'workspaceId' = ${String(workspaceId)}
                AND j.payload ->> 'visitorId' = ANY(${visitorIds}::text[]))`),
      rows(sql`
        SELECT jsonb_build_object('id', e.public_id, 'type', e.type, 'created_at', e.created_at,
                                  'body', e.body, 'source', e.source,
                                  'conversation', e.conversation) AS r
          FROM webhook_events e
         WHERE e.workspace_id = ${workspaceId}
           AND e.source ->> 'conversationId' = ANY(${pub}::text[])
         ORDER BY e.id`),
    ]);
  return {
    conversations,
    visitors,
    contacts,
    blocked_visitors: blocked,
    notification_email_items: emailItems,
    queued_jobs: jobs,
    webhook_events: webhooks,
  };
}

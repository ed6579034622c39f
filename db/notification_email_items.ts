/** notification_email_items: alerts waiting for the agent's next batched e-mail. */
import type { Executor } from "./client.ts";

export interface EmailItem {
  id: number;
  conversation_id: string | null;
  kind: string;
  title: string;
  body: string;
  url: string;
  created_at: Date;
}

export async function insertEmailItems(
  sql: Executor,
  items: {
    userId: number;
    workspaceId: number;
    conversationId: string | null;
    kind: string;
    title: string;
    body: string;
    url: string;
  }[],
): Promise<void> {
  if (items.length === 0) return;
  await sql`
    INSERT INTO notification_email_items (user_id, workspace_id, conversation_id, kind, title,
                                          body, url)
    SELECT i.user_id, i.workspace_id, i.conversation_id, i.kind, i.title, i.body, i.url
      FROM jsonb_to_recordset(${
    sql.json(items.map((i) => ({
      user_id: i.userId,
      workspace_id: i.workspaceId,
      conversation_id: i.conversationId,
      kind: i.kind,
      title: i.title,
      body: i.body,
      url: i.url,
    })) as never)
  }) AS i(user_id bigint, workspace_id bigint, conversation_id uuid, kind text, title text,
          body text, url text)`;
}

/** The oldest waiting items of one agent, with where to send them. */
export async function pendingEmailItems(
  sql: Executor,
  userId: number,
  limit: number,
): Promise<{ email: string; name: string; items: EmailItem[] } | null> {
  const [user] = await sql<{ email: string; name: string }[]>`
    SELECT email, name FROM users WHERE id = ${userId} AND NOT suspended`;
  if (!user) return null;
  const items = await sql<EmailItem[]>`
    SELECT id, conversation_id, kind, title, body, url, created_at
      FROM notification_email_items WHERE user_id = ${userId} ORDER BY id LIMIT ${limit}`;
  return { ...user, items };
}

export async function deleteEmailItemsUpTo(
  sql: Executor,
  userId: number,
  maxId: number,
): Promise<number> {
  await sql`DELETE FROM notification_email_items WHERE user_id = ${userId} AND id <= ${maxId}`;
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM notification_email_items WHERE user_id = ${userId}`;
  return row!.n;
}

/**
 * product_recommendations: one row per product shown with an AI reply (an
 * impression), its first click stamped on it; the portal's monthly counts.
 */
import type { Executor } from "./client.ts";

export async function insertImpressions(
  sql: Executor,
  workspaceId: number,
  shown: { chatbotId: number; conversationId: number; messageId: number; productIds: string[] },
): Promise<void> {
  if (shown.productIds.length === 0) return;
  await sql`
    INSERT INTO product_recommendations (workspace_id, chatbot_id, conversation_id, message_id,
                                         product_id, position)
    SELECT ${workspaceId}, ${shown.chatbotId}, ${shown.conversationId}, ${shown.messageId},
           p.product_id, p.position
      FROM unnest(${sql.array(shown.productIds)}::text[]) WITH ORDINALITY AS p(product_id, position)
    ON CONFLICT (message_id, product_id) DO NOTHING`;
}

/**
 * Stamp the first click on the latest impression of `productId` in the
 * conversation. False when the product was never shown there.
 */
export async function recordClick(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  productId: string,
): Promise<boolean> {
  const rows = await sql`
    UPDATE product_recommendations SET clicked_at = COALESCE(clicked_at, now())
     WHERE id = (SELECT id FROM product_recommendations
                  WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
                    AND product_id = ${productId}
                  ORDER BY id DESC LIMIT 1)
    RETURNING id`;
  return rows.length > 0;
}

export async function recommendationMonthTotals(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<{ impressions: number; clicks: number }> {
  const [row] = await sql<{ impressions: number; clicks: number }[]>`
    SELECT (SELECT count(*)::int FROM product_recommendations
             WHERE workspace_id = ${workspaceId} AND created_at >= ${since}
               AND created_at < ${until}) AS impressions,
           (SELECT count(*)::int FROM product_recommendations
             WHERE workspace_id = ${workspaceId} AND clicked_at >= ${since}
               AND clicked_at < ${until}) AS clicks`;
  return row ?? { impressions: 0, clicks: 0 };
}

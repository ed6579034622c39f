/** notification_preferences: what each agent changed; defaults live in the domain. */
import type { Executor } from "./client.ts";

export interface PreferencesRow {
  settings: Record<string, unknown>;
  dnd_until: Date | null;
}

export async function findPreferences(
  sql: Executor,
  userId: number,
): Promise<PreferencesRow | null> {
  const [row] = await sql<PreferencesRow[]>`
    SELECT settings, dnd_until FROM notification_preferences WHERE user_id = ${userId}`;
  return row ?? null;
}

/** The row locked for a read-merge-write, so two devices saving at once both count. */
export async function lockPreferences(
  sql: Executor,
  workspaceId: number,
  userId: number,
): Promise<PreferencesRow> {
  await sql`
    INSERT INTO notification_preferences (user_id, workspace_id) VALUES (${userId}, ${workspaceId})
    ON CONFLICT (user_id) DO NOTHING`;
  const [row] = await sql<PreferencesRow[]>`
    SELECT settings, dnd_until FROM notification_preferences WHERE user_id = ${userId}
       FOR UPDATE`;
  return row!;
}

export async function savePreferences(
  sql: Executor,
  userId: number,
  settings: Record<string, unknown>,
  dndUntil: Date | null,
): Promise<void> {
  await sql`
    UPDATE notification_preferences
       SET settings = ${sql.json(settings as never)}, dnd_until = ${dndUntil}, updated_at = now()
     WHERE user_id = ${userId}`;
}

/** Which of `ids` are bots of the workspace (the rest are dropped from a filter). */
export async function workspaceChatbotIds(
  sql: Executor,
  workspaceId: number,
  ids: number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await sql<{ id: number }[]>`
    SELECT id FROM chatbots WHERE workspace_id = ${workspaceId}
       AND id = ANY(${sql.array(ids)}::bigint[]) ORDER BY id`;
  return rows.map((r) => r.id);
}

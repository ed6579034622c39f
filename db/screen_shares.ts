/** screen_shares: an agent's requests to see a visitor's page, and how each ended (0185). */
import type { Executor } from "./client.ts";

export type ScreenShareState = "requested" | "active" | "declined" | "ended";
export type ScreenShareEnd = "visitor" | "agent" | "closed" | "left" | "turned_off";

export interface ScreenShareRow {
  id: number;
  workspace_id: number;
  conversation_id: number;
  requested_by: number | null;
  state: ScreenShareState;
  ended_by: ScreenShareEnd | null;
  requested_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
}

/** The conversation's newest request (open or not), or null when none was ever made. */
export async function latestScreenShare(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
): Promise<ScreenShareRow | null> {
  const [row] = await sql<ScreenShareRow[]>`
    SELECT * FROM screen_shares
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
     ORDER BY id DESC LIMIT 1`;
  return row ?? null;
}

/** The open request or share, if any. */
export async function openScreenShare(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
): Promise<ScreenShareRow | null> {
  const [row] = await sql<ScreenShareRow[]>`
    SELECT * FROM screen_shares
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND state IN ('requested', 'active')`;
  return row ?? null;
}

export async function insertScreenShare(
  sql: Executor,
  s: { workspaceId: number; conversationId: number; requestedBy: number; now: Date },
): Promise<ScreenShareRow> {
  const [row] = await sql<ScreenShareRow[]>`
    INSERT INTO screen_shares (workspace_id, conversation_id, requested_by, state, requested_at)
    VALUES (${s.workspaceId}, ${s.conversationId}, ${s.requestedBy}, 'requested', ${s.now})
    RETURNING *`;
  return row!;
}

/** requested → active; null when it is no longer a request (answered, withdrawn). */
export async function startScreenShare(
  sql: Executor,
  id: number,
  now: Date,
): Promise<ScreenShareRow | null> {
  const [row] = await sql<ScreenShareRow[]>`
    UPDATE screen_shares SET state = 'active', started_at = ${now}
     WHERE id = ${id} AND state = 'requested'
    RETURNING *`;
  return row ?? null;
}

/**
 * Ends the conversation's open request or share: `declined` for a request the
 * visitor refused, `ended` otherwise. Null when nothing was open, so of two
 * instances ending the same share only one reports it.
 */
export async function finishScreenShare(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  how: { state: "declined" | "ended"; by: ScreenShareEnd; now: Date },
): Promise<ScreenShareRow | null> {
  const [row] = await sql<ScreenShareRow[]>`
    UPDATE screen_shares SET state = ${how.state}, ended_by = ${how.by}, ended_at = ${how.now}
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND state IN ('requested', 'active')
    RETURNING *`;
  return row ?? null;
}

/** One statement: ends the open share of this conversation if the conversation is closed. */
export async function endScreenShareOfClosed(
  sql: Executor,
  workspaceId: number,
  publicId: string,
  now: Date,
): Promise<ScreenShareRow | null> {
  const [row] = await sql<ScreenShareRow[]>`
    UPDATE screen_shares s SET state = 'ended', ended_by = 'closed', ended_at = ${now}
      FROM conversations c
     WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId} AND c.status = 'closed'
       AND s.conversation_id = c.id AND s.state IN ('requested', 'active')
    RETURNING s.*`;
  return row ?? null;
}

/**
 * Ends every open request or share in the bot's conversations (`turned_off`:
 * its screen sharing was switched off), with each one's conversation id. Run
 * in the transaction that turns the flag off: a request or consent that read
 * the flag under its row lock (screen_share_target.ts) either finished
 * before, and is ended here, or waits and sees the flag off.
 */
export async function endScreenSharesOfBot(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  now: Date,
): Promise<(ScreenShareRow & { conversation_public_id: string })[]> {
  return await sql<(ScreenShareRow & { conversation_public_id: string })[]>`
    UPDATE screen_shares s SET state = 'ended', ended_by = 'turned_off', ended_at = ${now}
      FROM conversations c
     WHERE c.workspace_id = ${workspaceId} AND c.chatbot_id = ${chatbotId}
       AND s.conversation_id = c.id AND s.state IN ('requested', 'active')
    RETURNING s.*, c.public_id AS conversation_public_id`;
}

/** Shares being recorded now, across workspaces (few at any time: a partial index serves it). */
export async function activeScreenShares(
  sql: Executor,
): Promise<Pick<ScreenShareRow, "id" | "workspace_id" | "conversation_id" | "started_at">[]> {
  return await sql`
    SELECT id, workspace_id, conversation_id, started_at FROM screen_shares
     WHERE state = 'active' ORDER BY id LIMIT 1000`;
}

/** Ends one share that went quiet (`left`), unless it already ended; with its conversation's id. */
export async function endIdleScreenShare(
  sql: Executor,
  id: number,
  now: Date,
): Promise<(ScreenShareRow & { conversation_public_id: string }) | null> {
  const [row] = await sql<(ScreenShareRow & { conversation_public_id: string })[]>`
    UPDATE screen_shares s SET state = 'ended', ended_by = 'left', ended_at = ${now}
      FROM conversations c
     WHERE s.id = ${id} AND s.state = 'active' AND c.id = s.conversation_id
    RETURNING s.*, c.public_id AS conversation_public_id`;
  return row ?? null;
}

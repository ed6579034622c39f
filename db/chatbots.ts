/** chatbots: one row per bot, scoped by workspace. */
import type { Executor } from "./client.ts";

export interface ChatbotRow {
  id: number;
  workspace_id: number;
  public_key: string;
  name: string;
  role: string;
  provider: string;
  model: string;
  is_active: boolean;
  persona: string;
  instructions: string;
  welcome_message: string | null;
  branding: Record<string, unknown>;
  language: string;
  /** The widget's allowed sites (empty: any site). */
  allowed_origins: string[];
  created_at: Date;
}

export interface ChatbotWithCounts extends ChatbotRow {
  knowledge_sources: number;
  conversations: number;
}

export async function listChatbots(
  sql: Executor,
  workspaceId: number,
): Promise<ChatbotWithCounts[]> {
  return await sql<ChatbotWithCounts[]>`
    SELECT b.*,
      (SELECT count(*)::int FROM knowledge_sources k
        WHERE k.chatbot_id = b.id AND k.parent_id IS NULL) AS knowledge_sources,
      (SELECT count(*)::int FROM conversations c WHERE c.chatbot_id = b.id) AS conversations
      FROM chatbots b
     WHERE b.workspace_id = ${workspaceId}
     ORDER BY b.id`;
}

export async function findChatbotByKey(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<ChatbotWithCounts | null> {
  const [row] = await sql<ChatbotWithCounts[]>`
    SELECT b.*,
      (SELECT count(*)::int FROM knowledge_sources k
        WHERE k.chatbot_id = b.id AND k.parent_id IS NULL) AS knowledge_sources,
      (SELECT count(*)::int FROM conversations c WHERE c.chatbot_id = b.id) AS conversations
      FROM chatbots b
     WHERE b.workspace_id = ${workspaceId} AND b.public_key = ${publicKey}`;
  return row ?? null;
}

/** Public lookup for the widget: the key alone identifies the workspace. */
export async function findActiveChatbotByPublicKey(
  sql: Executor,
  publicKey: string,
): Promise<ChatbotRow | null> {
  const [row] = await sql<ChatbotRow[]>`
    SELECT b.* FROM chatbots b JOIN workspaces w ON w.id = b.workspace_id
     WHERE b.public_key = ${publicKey} AND b.is_active AND NOT w.suspended`;
  return row ?? null;
}

/** What a streamed reply needs before its first token, read with the bot. */
export interface ChatbotForReply {
  bot: ChatbotRow;
  /** The workspace's encrypted key for the bot's provider; null when none is stored. */
  providerCiphertext: string | null;
  /** Messages left in `month` under the plan's limit; null when unlimited. */
  quotaHeadroom: number | null;
  /** Whether an agent blocked the visitor asking (widget lookups only). */
  visitorBlocked: boolean;
  /**
   * The visitor message already stored under the caller's idempotency key in
   * the bot's workspace (a retry), or null. Only asked when a key is given.
   */
  replayMessageId: number | null;
  /**
   * The bot's knowledge generation (migration 0110): changes with every write
   * to its chunks or sources; null while it has none.
   */
  knowledgeGeneration: number | null;
  /**
   * A fingerprint of everything above that shapes a reply (the bot's row, its
   * provider key, its knowledge generation): a reply drafted from a kept copy
   * is checked against it (db/first_turn.ts `insertKnownBotFirstTurn`).
   */
  replyVersion: string;
  /**
   * Widget lookups: every visitor the workspace has blocked, or null when
   * there are more than BLOCKED_LISTED (domain/widget/known_bots.ts).
   */
  blockedVisitorIds?: string[] | null;
}

/** Blocked visitors listed with a widget lookup; a workspace with more is not listed. */
export const BLOCKED_LISTED = 1000;

/** The bot's knowledge generation, beside a row `b` of chatbots. */
export const GENERATION_OF_B =
  "(SELECT ks.generation FROM knowledge_stats ks WHERE ks.chatbot_id = b.id)";

/**
 * The fingerprint `replyVersion`, over `b` (chatbots), `pk` (provider_keys) and
 * the knowledge generation: one expression, so a lookup and a turn agree.
 */
export const REPLY_VERSION = `md5(row_to_json(b)::text || '|' || COALESCE(pk.ciphertext, '')
  || '|' || COALESCE(${GENERATION_OF_B}::text, ''))`;

type ReplyRow = ChatbotRow & {
  provider_ciphertext: string | null;
  quota_headroom: number | null;
  visitor_blocked: boolean;
  replay_message_id: number | null;
  knowledge_generation: number | null;
  reply_version: string;
  blocked_visitor_ids?: string[] | null;
};

/**
 * The bot's columns plus what a reply needs: its provider key, the quota left
 * in `month` and, for a widget visitor, whether they are blocked.
 */
function replyColumns(
  sql: Executor,
  month: string,
  visitorId: string | null = null,
  clientKey: string | null = null,
) {
  const blocked = visitorId === null ? sql`false` : sql`EXISTS (SELECT 1 FROM blocked_visitors bv
       WHERE bv.workspace_id = b.workspace_id AND bv.visitor_id = ${visitorId})`;
  // One probe of messages_visitor_key_idx, in the statement a reply needs anyway.
  const replay = clientKey === null ? sql`NULL::bigint` : sql`(SELECT m.id FROM messages m
       WHERE m.workspace_id = b.workspace_id AND m.role = 'visitor'
         AND m.client_id = ${clientKey})`;
  return sql`
    b.*, pk.ciphertext AS provider_ciphertext, ${blocked} AS visitor_blocked,
    ${replay} AS replay_message_id,
    (SELECT p.monthly_message_limit - COALESCE(
              (SELECT u.messages_used FROM usage_counters u
                WHERE u.workspace_id = w.id AND u.month = ${month}), 0)
       FROM plans p WHERE p.id = w.plan_id) AS quota_headroom,
    ${sql.unsafe(GENERATION_OF_B)} AS knowledge_generation,
    ${sql.unsafe(REPLY_VERSION)} AS reply_version
      FROM chatbots b JOIN workspaces w ON w.id = b.workspace_id
      LEFT JOIN provider_keys pk ON pk.workspace_id = b.workspace_id AND pk.provider = b.provider`;
}

function forReply(row: ReplyRow | undefined): ChatbotForReply | null {
  if (!row) return null;
  const {
    provider_ciphertext,
    quota_headroom,
    visitor_blocked,
    replay_message_id,
    knowledge_generation,
    reply_version,
    blocked_visitor_ids,
    ...bot
  } = row;
  return {
    bot,
    providerCiphertext: provider_ciphertext,
    quotaHeadroom: quota_headroom,
    visitorBlocked: visitor_blocked,
    replayMessageId: replay_message_id === null ? null : Number(replay_message_id),

    knowledgeGeneration: knowledge_generation,
    replyVersion: reply_version,
    ...(blocked_visitor_ids === undefined ? {} : { blockedVisitorIds: blocked_visitor_ids }),
  };
}

/**
 * The widget's bot, its workspace's stored provider key and the quota left
 * this month, in one round trip: a reply needs all three before its first
 * token.
 */
export async function findActiveChatbotForReply(
  sql: Executor,
  publicKey: string,
  month: string,
  visitorId: string,
  clientKey: string | null = null,
): Promise<ChatbotForReply | null> {
  const [row] = await sql<ReplyRow[]>`
    SELECT (SELECT CASE WHEN count(*) > ${BLOCKED_LISTED} THEN NULL
                        ELSE COALESCE(array_agg(x.visitor_id), '{}') END
              FROM (SELECT bv.visitor_id FROM blocked_visitors bv
                     WHERE bv.workspace_id = b.workspace_id
                     LIMIT ${BLOCKED_LISTED + 1}) x) AS blocked_visitor_ids,
           ${replyColumns(sql, month, visitorId, clientKey)}
     WHERE b.public_key = ${publicKey} AND b.is_active AND NOT w.suspended`;
  return forReply(row);
}

/** The same for a v1 call: a bot of the caller's workspace, active or not. */
export async function findWorkspaceChatbotForReply(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
  month: string,
  clientKey: string | null = null,
): Promise<ChatbotForReply | null> {
  const [row] = await sql<ReplyRow[]>`
    SELECT ${replyColumns(sql, month, null, clientKey)}
     WHERE b.workspace_id = ${workspaceId} AND b.public_key = ${publicKey}`;
  return forReply(row);
}

/** A conversation's bot (any state) with its provider key, for an agent's AI call. */
export async function findChatbotByIdForReply(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  month: string,
): Promise<ChatbotForReply | null> {
  const [row] = await sql<ReplyRow[]>`
    SELECT ${replyColumns(sql, month)}
     WHERE b.workspace_id = ${workspaceId} AND b.id = ${chatbotId}`;
  return forReply(row);
}

export interface ChatbotInput {
  name: string;
  publicKey: string;
  role: string;
  provider: string;
  model: string;
  isActive: boolean;
  persona: string;
  instructions: string;
  welcomeMessage: string | null;
  branding: Record<string, unknown>;
  language?: string;
}

/** Insert or update by public key (seeding is keyed on it). */
export async function upsertChatbot(
  sql: Executor,
  workspaceId: number,
  b: ChatbotInput,
): Promise<ChatbotRow> {
  const [row] = await sql<ChatbotRow[]>`
    INSERT INTO chatbots (workspace_id, public_key, name, role, provider, model, is_active,
                          persona, instructions, welcome_message, branding, language)
    VALUES (${workspaceId}, ${b.publicKey}, ${b.name}, ${b.role}, ${b.provider}, ${b.model},
            ${b.isActive}, ${b.persona}, ${b.instructions}, ${b.welcomeMessage},
            ${sql.json(b.branding as never)}, ${b.language ?? "english"})
    ON CONFLICT (public_key) DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role,
      provider = EXCLUDED.provider, model = EXCLUDED.model, is_active = EXCLUDED.is_active,
      persona = EXCLUDED.persona, instructions = EXCLUDED.instructions,
      welcome_message = EXCLUDED.welcome_message, branding = EXCLUDED.branding,
      language = EXCLUDED.language
    WHERE chatbots.workspace_id = EXCLUDED.workspace_id
    RETURNING *`;
  if (!row) throw new Error(`public key ${b.publicKey} belongs to another workspace`);
  return row;
}

export interface ChatbotSettingsUpdate {
  name: string;
  persona?: string;
  instructions?: string;
  /** undefined keeps the stored message; null restores the default. */
  welcomeMessage?: string | null;
  isActive?: boolean;
  /** undefined keeps the stored value (the portal never changes these). */
  provider?: string;
  model?: string;
  /** Top-level branding fields merged over the stored ones (jsonb `||`). */
  brandingPatch: Record<string, unknown>;
  /** The widget's allowed sites, normalised (domain/widget/site_rules.ts); undefined keeps them. */
  allowedOrigins?: string[];
}

/**
 * Portal settings update in one statement: the branding merge happens inside
 * PostgreSQL, so two concurrent updates of different fields both survive.
 * False when the bot is not in the workspace.
 */
export async function updateChatbotSettings(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
  u: ChatbotSettingsUpdate,
): Promise<boolean> {
  const keepWelcome = u.welcomeMessage === undefined;
  const rows = await sql`
    UPDATE chatbots SET name = ${u.name},
           persona = COALESCE(${u.persona ?? null}, persona),
           instructions = COALESCE(${u.instructions ?? null}, instructions),
           welcome_message = CASE WHEN ${keepWelcome} THEN welcome_message
                                  ELSE ${u.welcomeMessage ?? null} END,
           is_active = COALESCE(${u.isActive ?? null}, is_active),
           provider = COALESCE(${u.provider ?? null}, provider),
           model = COALESCE(${u.model ?? null}, model),
           branding = branding || ${sql.json(u.brandingPatch as never)},
           allowed_origins = ${
    u.allowedOrigins ? sql`${sql.array(u.allowedOrigins)}::text[]` : sql`allowed_origins`
  }
     WHERE workspace_id = ${workspaceId} AND public_key = ${publicKey}
    RETURNING id`;
  return rows.length > 0;
}

/**
 * Holds the workspace's row until the transaction ends, so two bot creations
 * cannot both pass the plan's bot limit. Returns the bot count under the lock.
 */
export async function lockAndCountChatbots(tx: Executor, workspaceId: number): Promise<number> {
  await tx`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;
  const [row] = await tx<{ n: number }[]>`
    SELECT count(*)::int AS n FROM chatbots WHERE workspace_id = ${workspaceId}`;
  return row!.n;
}

/**
 * Deletes a bot; its conversations (with their messages, notes and events),
 * knowledge sources (with pages and chunks) and vocabulary go with it through
 * the foreign keys' cascades. Returns the ids of its knowledge sources (for
 * their indexing jobs), or null when the bot is not in the workspace.
 */
export async function deleteChatbot(
  tx: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<{ id: number; sourceIds: number[] } | null> {
  const [bot] = await tx<{ id: number }[]>`
    SELECT id FROM chatbots WHERE workspace_id = ${workspaceId} AND public_key = ${publicKey}`;
  if (!bot) return null;
  const sources = await tx<{ id: number }[]>`
    SELECT id FROM knowledge_sources WHERE chatbot_id = ${bot.id}`;
  await tx`DELETE FROM chatbots WHERE workspace_id = ${workspaceId} AND id = ${bot.id}`;
  return { id: bot.id, sourceIds: sources.map((s) => s.id) };
}

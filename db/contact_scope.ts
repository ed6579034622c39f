/**
 * Which rows belong to one contact (docs/data-protection.md#whose-data): the
 * conversations that carry one of its e-mail addresses or verified user ids,
 * or were held by one of its visitors (bot and visitor id), grown until no
 * new one is found, so a person who gave an address in one browser and only
 * chatted in another conversation of the same browser is found whole.
 */
import type { Executor } from "./client.ts";

/** How a contact is named: any of these, all within one workspace. */
export interface ContactSelector {
  emails?: string[];
  userIds?: string[];
  contactIds?: number[];
  conversationIds?: string[];
  /** Only the named conversations, without growing to the contact's others. */
  exact?: boolean;
}

export interface VisitorRef {
  chatbot_id: number;
  visitor_id: string;
}

/** The rows found: internal ids for the statements, public ids for the reply. */
export interface ContactScope {
  conversationIds: number[];
  publicIds: string[];
  visitors: VisitorRef[];
}

interface ScopeRow {
  id: number;
  public_id: string;
  chatbot_id: number;
  visitor_id: string;
  email: string | null;
  sub: string | null;
}

const MAX_ROUNDS = 5;

export async function resolveContactScope(
  sql: Executor,
  workspaceId: number,
  sel: ContactSelector,
  lock = false,
): Promise<ContactScope> {
  const emails = new Set((sel.emails ?? []).map((e) => e.toLowerCase()));
  const subs = new Set(sel.userIds ?? []);
  const visitors = new Map<string, VisitorRef>();
  if (sel.contactIds?.length) {
    const rows = await sql<VisitorRef[]>`
      SELECT chatbot_id, visitor_id FROM contacts
       WHERE workspace_id = ${workspaceId} AND id = ANY(${sql.array(sel.contactIds)}::bigint[])`;
    for (const r of rows) visitors.set(keyOf(r), r);
  }
  const found = new Map<number, ScopeRow>();
  let publicIds = sel.conversationIds ?? [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const rows = await sql<ScopeRow[]>`
      SELECT id, public_id::text, chatbot_id, visitor_id, lower(visitor_email) AS email,
             meta -> 'identity' ->> 'sub' AS sub
        FROM conversations
       WHERE workspace_id = ${workspaceId}
         AND (public_id::text = ANY(${sql.array(publicIds)}::text[])
           OR lower(visitor_email) = ANY(${sql.array([...emails])}::text[])
           OR meta -> 'identity' ->> 'sub' = ANY(${sql.array([...subs])}::text[])
           OR (chatbot_id, visitor_id) IN (
                SELECT * FROM unnest(${
      sql.array([...visitors.values()].map((v) => v.chatbot_id))
    }::bigint[],
                                     ${
      sql.array([...visitors.values()].map((v) => v.visitor_id))
    }::text[])))
       ORDER BY id
       ${lock ? sql`FOR UPDATE` : sql``}`;
    let grew = false;
    for (const r of rows) {
      if (found.has(r.id)) continue;
      found.set(r.id, r);
      grew = true;
      if (sel.exact) continue;
      if (r.email) emails.add(r.email);
      if (r.sub) subs.add(r.sub);
      visitors.set(keyOf(r), { chatbot_id: r.chatbot_id, visitor_id: r.visitor_id });
    }
    publicIds = [];
    if (!grew || sel.exact) break;
  }
  if (sel.exact) {
    // One conversation: its visitor goes only when no other conversation remains.
    for (const r of found.values()) visitors.set(keyOf(r), r);
  }
  // Visitors seen by the widget under these identities (a contact row) count too.
  if (!sel.exact && (emails.size || subs.size)) {
    const rows = await sql<VisitorRef[]>`
      SELECT chatbot_id, visitor_id FROM contacts
       WHERE workspace_id = ${workspaceId}
         AND (lower(email) = ANY(${sql.array([...emails])}::text[])
           OR user_id = ANY(${sql.array([...subs])}::text[]))`;
    for (const r of rows) visitors.set(keyOf(r), r);
  }
  const rows = [...found.values()];
  return {
    conversationIds: rows.map((r) => Number(r.id)),
    publicIds: rows.map((r) => r.public_id),
    visitors: [...visitors.values()].map((v) => ({
      chatbot_id: Number(v.chatbot_id),
      visitor_id: v.visitor_id,
    })),
  };
}

const keyOf = (v: VisitorRef) => `${v.chatbot_id} ${v.visitor_id}`;

/** The visitor refs as two parallel arrays, for `unnest` in the statements that use them. */
export function visitorArrays(sql: Executor, visitors: VisitorRef[]) {
  return {
    bots: sql.array(visitors.map((v) => v.chatbot_id)),
    ids: sql.array(visitors.map((v) => v.visitor_id)),
  };
}

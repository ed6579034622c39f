/**
 * Erasure (GDPR article 17, docs/data-protection.md#erasure): everything that
 * names a contact, or one conversation, deleted in one transaction with the
 * audit row (who, when, how many rows; never what was erased) and the
 * `contact.erased` webhook event (public ids only) in the outbox. After the
 * commit every instance ends the sockets' subscriptions to the erased
 * conversations (the widget forgets its session) and cached customer context
 * is dropped. Corrections made from those conversations (their question is
 * usually the visitor's words) go with their knowledge sources; retention,
 * which deletes by age, keeps them (db/knowledge_corrections.ts).
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
import { type ContactSelector, resolveContactScope } from "../../db/contact_scope.ts";
import { type ErasedCounts, eraseScopeRows } from "../../db/contact_erasure.ts";
import { deleteCorrectionsFrom } from "../../db/knowledge_corrections.ts";
import { listIntegrations } from "../../db/workspace_integrations.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";
import { NotFound } from "../errors.ts";
import { customerContextKey } from "../customer_context/customer_context.ts";

export interface ErasureResult {
  erasure_id: string;
  /** Public ids of the erased conversations. */
  conversations: string[];
  counts: ErasedCounts;
}

export interface EraseInput {
  workspaceId: number;
  selector: ContactSelector;
  actor: AuditActor;
  /** How the contact was named, for the audit row (`email`, `user_id`, `contact`, `conversation`). */
  namedBy: string;
  /** Nothing found is a 404 (the dashboard names a record) or an empty result (v1 names a person). */
  notFound: "404" | "empty";
}

export async function eraseContact(deps: AppDeps, input: EraseInput): Promise<ErasureResult> {
  const now = deps.clock();
  const erasureId = crypto.randomUUID();
  const oneConversation = input.selector.exact === true;
  const { result, event, internalIds, corrections } = await deps.sql.begin(async (tx) => {
    const scope = await resolveContactScope(tx, input.workspaceId, input.selector, true);
    const found = scope.conversationIds.length + scope.visitors.length > 0;
    if (!found && input.notFound === "404") {
      throw new NotFound(oneConversation ? "Conversation not found." : "Contact not found.");
    }
    const visitors = await visitorsByKey(tx, scope.visitors);
    // Before the conversations go (their link to a correction is then gone).
    const corrections = await deleteCorrectionsFrom(tx, input.workspaceId, scope.conversationIds);
    const counts = {
      ...await eraseScopeRows(tx, input.workspaceId, scope),
      corrections: corrections.length,
    };
    const event: ParleyEvent = {
      type: "contact.erased",
      workspaceId: input.workspaceId,
      erasureId,
      conversationIds: scope.publicIds,
      visitors,
    };
    if (found) await recordInOutbox(tx, now, event);
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: input.actor,
      action: oneConversation ? "conversation.erased" : "contact.erased",
      target: { type: oneConversation ? "conversation" : "erasure", id: erasureId },
      details: { named_by: input.namedBy, ...counts },
      now,
    });
    return {
      result: { erasure_id: erasureId, conversations: scope.publicIds, counts },
      event: found ? event : null,
      internalIds: scope.conversationIds,
      corrections,
    };
  });
  if (event) {
    await publishEvent(deps, event);
    await dropCustomerContext(deps, input.workspaceId, internalIds);
  }
  // Corrections made from the erased conversations left their bots' knowledge.
  for (const c of corrections) {
    await publishEvent(deps, {
      type: "knowledge.changed",
      workspaceId: input.workspaceId,
      chatbotId: c.chatbot_id,
      sourceId: c.source_id,
      action: "deleted",
    });
  }
  return result;
}

async function visitorsByKey(
  tx: Executor,
  visitors: { chatbot_id: number; visitor_id: string }[],
): Promise<{ chatbotKey: string; visitorId: string }[]> {
  if (!visitors.length) return [];
  const keys = new Map(
    (await tx<{ id: number; public_key: string }[]>`
      SELECT id, public_key FROM chatbots
       WHERE id = ANY(${tx.array(visitors.map((v) => v.chatbot_id))}::bigint[])`)
      .map((r) => [Number(r.id), r.public_key]),
  );
  return visitors.map((v) => ({
    chatbotKey: keys.get(v.chatbot_id) ?? "",
    visitorId: v.visitor_id,
  }));
}

/**
 * The agent panel's customer context (orders, billing) is cached in Kv under
 * the conversation and the links it was read through: drop what the current
 * links would have cached. Best effort: the cache expires on its own anyway.
 */
async function dropCustomerContext(
  deps: AppDeps,
  workspaceId: number,
  conversationIds: number[],
): Promise<void> {
  try {
    const linked = await listIntegrations(deps.sql, workspaceId);
    await Promise.all(
      conversationIds.map((id) => deps.kv.dropCached(customerContextKey(id, linked))),
    );
  } catch (err) {
    deps.log.warn("erasure: customer context cache not dropped", { err: String(err) });
  }
}

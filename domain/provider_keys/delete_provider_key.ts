/**
 * Remove a provider key. Idempotent: removing a key that was never stored
 * still succeeds (and, having changed nothing, leaves no audit row).
 */
import type { Sql } from "../../db/client.ts";
import { deleteProviderKey } from "../../db/provider_keys.ts";
import { providerInfo } from "../ai/providers.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { Invalid } from "../errors.ts";

export async function removeProviderKey(
  sql: Sql,
  workspaceId: number,
  provider: string,
  audit: { actor: AuditActor; now: Date },
): Promise<{ message: string }> {
  const info = providerInfo(provider);
  if (!info) throw Invalid.field("provider", "The selected provider is invalid.");
  const removed = await sql.begin(async (tx) => {
    if (!(await deleteProviderKey(tx, workspaceId, provider))) return false;
    await recordAudit(tx, {
      workspaceId,
      actor: audit.actor,
      action: "provider_key.removed",
      target: { type: "provider", id: provider },
      now: audit.now,
    });
    return true;
  });
  return {
    message: removed
      ? `The ${info.label} key was removed.`
      : `No ${info.label} key was stored; nothing to remove.`,
  };
}

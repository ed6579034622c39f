/**
 * Export of one person's data (GDPR article 15, docs/data-protection.md#export):
 * a JSON document of everything erasure would delete for the same selector,
 * read in one transaction (a consistent picture) that also writes the
 * `contact.exported` audit row.
 */
import type { AppDeps } from "../deps.ts";
import { type ContactSelector, resolveContactScope } from "../../db/contact_scope.ts";
import { type ContactExportRows, readScopeRows } from "../../db/contact_export.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { NotFound } from "../errors.ts";

export interface ContactExport extends ContactExportRows {
  format: "parley.contact_export";
  version: 1;
  exported_at: string;
}

export async function exportContact(
  deps: AppDeps,
  input: {
    workspaceId: number;
    selector: ContactSelector;
    actor: AuditActor;
    namedBy: string;
    notFound: "404" | "empty";
  },
): Promise<ContactExport> {
  const now = deps.clock();
  return await deps.sql.begin(async (tx) => {
    await tx`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`;
    const scope = await resolveContactScope(tx, input.workspaceId, input.selector);
    if (scope.conversationIds.length + scope.visitors.length === 0 && input.notFound === "404") {
      throw new NotFound("Contact not found.");
    }
    const rows = await readScopeRows(tx, input.workspaceId, scope);
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: input.actor,
      action: "contact.exported",
      target: null,
      details: {
        named_by: input.namedBy,
        conversations: rows.conversations.length,
        visitors: rows.visitors.length,
      },
      now,
    });
    return {
      format: "parley.contact_export",
      version: 1,
      exported_at: now.toISOString(),
      ...rows,
    };
  });
}

/** workspace_integrations: the storefront and billing services a workspace has linked. */
import type { Executor } from "./client.ts";

export type IntegrationService = "storefront" | "billing";

export interface IntegrationRow {
  service: IntegrationService;
  /** The shop domain for a storefront; null for billing. */
  account: string | null;
  ciphertext: string;
  last_four: string;
  updated_at: Date;
}

export async function upsertIntegration(
  sql: Executor,
  workspaceId: number,
  i: { service: IntegrationService; account: string | null; ciphertext: string; lastFour: string },
): Promise<void> {
  await sql`
    INSERT INTO workspace_integrations (workspace_id, service, account, ciphertext, last_four)
    VALUES (${workspaceId}, ${i.service}, ${i.account}, ${i.ciphertext}, ${i.lastFour})
    ON CONFLICT (workspace_id, service) DO UPDATE SET account = EXCLUDED.account,
      ciphertext = EXCLUDED.ciphertext, last_four = EXCLUDED.last_four, updated_at = now()`;
}

export async function deleteIntegration(
  sql: Executor,
  workspaceId: number,
  service: IntegrationService,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM workspace_integrations
     WHERE workspace_id = ${workspaceId} AND service = ${service} RETURNING service`;
  return rows.length > 0;
}

export async function listIntegrations(
  sql: Executor,
  workspaceId: number,
): Promise<IntegrationRow[]> {
  return await sql<IntegrationRow[]>`
    SELECT service, account, ciphertext, last_four, updated_at FROM workspace_integrations
     WHERE workspace_id = ${workspaceId} ORDER BY service`;
}

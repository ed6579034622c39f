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
  linked_by: number | null;
  /** The linking user's name while they are a member (listIntegrations only). */
  linked_by_name?: string | null;
  /** The last "test connection" of this credential (null: never tested). */
  checked_at: Date | null;
  check_ok: boolean | null;
  check_message: string | null;
}

/** Store or replace a credential; a replaced one's last check no longer applies. */
export async function upsertIntegration(
  sql: Executor,
  workspaceId: number,
  i: {
    service: IntegrationService;
    account: string | null;
    ciphertext: string;
    lastFour: string;
    linkedBy?: number | null;
  },
): Promise<void> {
  await sql`
    INSERT INTO workspace_integrations
           (workspace_id, service, account, ciphertext, last_four, linked_by)
    VALUES (${workspaceId}, ${i.service}, ${i.account}, ${i.ciphertext}, ${i.lastFour},
            ${i.linkedBy ?? null})
    ON CONFLICT (workspace_id, service) DO UPDATE SET account = EXCLUDED.account,
      ciphertext = EXCLUDED.ciphertext, last_four = EXCLUDED.last_four,
      linked_by = EXCLUDED.linked_by, updated_at = now(),
      checked_at = NULL, check_ok = NULL, check_message = NULL`;
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
    SELECT i.service, i.account, i.ciphertext, i.last_four, i.updated_at,
           i.linked_by::int AS linked_by, u.name AS linked_by_name,
           i.checked_at, i.check_ok, i.check_message
      FROM workspace_integrations i
      LEFT JOIN users u ON u.id = i.linked_by AND u.workspace_id = i.workspace_id
     WHERE i.workspace_id = ${workspaceId} ORDER BY i.service`;
}

/** One service's row, locked for the transaction when `forUpdate`. */
export async function findIntegration(
  sql: Executor,
  workspaceId: number,
  service: IntegrationService,
  opts: { forUpdate?: boolean } = {},
): Promise<IntegrationRow | null> {
  const [row] = await sql<IntegrationRow[]>`
    SELECT service, account, ciphertext, last_four, updated_at, linked_by::int AS linked_by,
           checked_at, check_ok, check_message
      FROM workspace_integrations
     WHERE workspace_id = ${workspaceId} AND service = ${service}
     ${opts.forUpdate ? sql`FOR UPDATE` : sql``}`;
  return row ?? null;
}

/**
 * Record a test's outcome against the credential it tested: if the
 * credential was replaced meanwhile, the outcome judged the old one and is
 * dropped (false).
 */
export async function recordIntegrationCheck(
  sql: Executor,
  workspaceId: number,
  service: IntegrationService,
  testedCiphertext: string,
  check: { ok: boolean; message: string; at: Date },
): Promise<boolean> {
  const rows = await sql`
    UPDATE workspace_integrations
       SET checked_at = ${check.at}, check_ok = ${check.ok}, check_message = ${check.message}
     WHERE workspace_id = ${workspaceId} AND service = ${service}
       AND ciphertext = ${testedCiphertext}
    RETURNING service`;
  return rows.length > 0;
}

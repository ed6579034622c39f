/** provider_keys: one encrypted AI provider key per workspace and provider code. */
import type { Executor } from "./client.ts";

export interface ProviderKeyRow {
  provider: string;
  ciphertext: string;
  last_four: string;
  updated_at: Date;
}

export async function listProviderKeys(
  sql: Executor,
  workspaceId: number,
): Promise<ProviderKeyRow[]> {
  return await sql<ProviderKeyRow[]>`
    SELECT provider, ciphertext, last_four, updated_at FROM provider_keys
     WHERE workspace_id = ${workspaceId}`;
}

export async function findProviderKey(
  sql: Executor,
  workspaceId: number,
  provider: string,
): Promise<ProviderKeyRow | null> {
  const [row] = await sql<ProviderKeyRow[]>`
    SELECT provider, ciphertext, last_four, updated_at FROM provider_keys
     WHERE workspace_id = ${workspaceId} AND provider = ${provider}`;
  return row ?? null;
}

export async function upsertProviderKey(
  sql: Executor,
  workspaceId: number,
  provider: string,
  ciphertext: string,
  lastFour: string,
): Promise<void> {
  await sql`
    INSERT INTO provider_keys (workspace_id, provider, ciphertext, last_four)
    VALUES (${workspaceId}, ${provider}, ${ciphertext}, ${lastFour})
    ON CONFLICT (workspace_id, provider) DO UPDATE SET ciphertext = EXCLUDED.ciphertext,
      last_four = EXCLUDED.last_four, updated_at = now()`;
}

/** True when a key was removed. */
export async function deleteProviderKey(
  sql: Executor,
  workspaceId: number,
  provider: string,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM provider_keys WHERE workspace_id = ${workspaceId} AND provider = ${provider}
    RETURNING provider`;
  return rows.length > 0;
}

/** Whether any workspace stored a key: the start banner's hint is for installs without one. */
export async function anyProviderKeyStored(sql: Executor): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM provider_keys) AS found`;
  return row?.found ?? false;
}

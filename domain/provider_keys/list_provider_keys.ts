/**
 * The eight providers in list order, each with whether the workspace stored a
 * key and its last four characters. The key itself never leaves the database.
 */
import type { Executor } from "../../db/client.ts";
import { listProviderKeys } from "../../db/provider_keys.ts";
import { PROVIDERS } from "../ai/providers.ts";

export interface ProviderKeyView {
  provider: string;
  label: string;
  last_four: string | null;
  configured: boolean;
}

export async function listProviderKeyViews(
  sql: Executor,
  workspaceId: number,
): Promise<ProviderKeyView[]> {
  const stored = new Map(
    (await listProviderKeys(sql, workspaceId)).map((k) => [k.provider, k.last_four]),
  );
  return PROVIDERS.map((p) => ({
    provider: p.code,
    label: p.label,
    last_four: stored.get(p.code) ?? null,
    configured: stored.has(p.code),
  }));
}

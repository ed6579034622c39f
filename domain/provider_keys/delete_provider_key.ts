/** Remove a provider key. Idempotent: removing a key that was never stored still succeeds. */
import type { Executor } from "../../db/client.ts";
import { deleteProviderKey } from "../../db/provider_keys.ts";
import { providerInfo } from "../ai/providers.ts";
import { Invalid } from "../errors.ts";

export async function removeProviderKey(
  sql: Executor,
  workspaceId: number,
  provider: string,
): Promise<{ message: string }> {
  const info = providerInfo(provider);
  if (!info) throw Invalid.field("provider", "The selected provider is invalid.");
  const removed = await deleteProviderKey(sql, workspaceId, provider);
  return {
    message: removed
      ? `The ${info.label} key was removed.`
      : `No ${info.label} key was stored; nothing to remove.`,
  };
}

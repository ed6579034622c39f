/**
 * Provider keys from the admin CLI, for operators without a portal token: the
 * same rules as PUT/DELETE /api/portal/keys/{provider} (encrypted under
 * APP_KEY, last four shown, deleting an absent key succeeds).
 */
import { listProviderKeyViews, type ProviderKeyView } from "../provider_keys/list_provider_keys.ts";
import { setProviderKey } from "../provider_keys/set_provider_key.ts";
import { removeProviderKey } from "../provider_keys/delete_provider_key.ts";
import { adminCliActor, type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export async function listKeys(
  deps: AdminDeps,
  input: { workspace: string },
): Promise<ProviderKeyView[]> {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  return await listProviderKeyViews(deps.sql, ws.id);
}

export async function setKey(
  deps: AdminDeps,
  input: { workspace: string; provider: string; apiKey: string },
): Promise<{ workspace: string; provider: string; last_four: string; configured: true }> {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const stored = await setProviderKey(deps.sql, deps.appKey, ws.id, {
    provider: input.provider,
    apiKey: input.apiKey,
  }, { actor: adminCliActor(), now: deps.now });
  return { workspace: ws.slug, ...stored };
}

export async function deleteKey(
  deps: AdminDeps,
  input: { workspace: string; provider: string },
): Promise<{ workspace: string; provider: string; message: string }> {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const { message } = await removeProviderKey(deps.sql, ws.id, input.provider, {
    actor: adminCliActor(),
    now: deps.now,
  });
  return { workspace: ws.slug, provider: input.provider, message };
}
